from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def conv2d(data: T.Buffer((T.int64(1), T.int64(8), T.int64(7), T.int64(7)), "float32"), weight: T.Buffer((T.int64(16), T.int64(8), T.int64(3), T.int64(3)), "float32"), conv2d_nchw: T.Buffer((T.int64(1), T.int64(16), T.int64(7), T.int64(7)), "float32")):
        T.func_attr({"global_symbol": "conv2d", "tir.noalias": T.bool(True)})
        pad_temp = T.alloc_buffer((T.int64(1), T.int64(8), T.int64(9), T.int64(9)))
        conv2d_nchw_local = T.alloc_buffer((T.int64(1), T.int64(16), T.int64(7), T.int64(7)), scope="local")
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(8), T.int64(9), T.int64(9)):
            with T.block("pad_temp"):
                vax0, vax1, vax2, vax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(data[vax0, vax1, vax2 - T.int64(1), vax3 - T.int64(1)])
                T.writes(pad_temp[vax0, vax1, vax2, vax3])
                pad_temp[vax0, vax1, vax2, vax3] = T.if_then_else(vax2 >= T.int64(1) and vax2 < T.int64(8) and (vax3 >= T.int64(1) and vax3 < T.int64(8)), data[vax0, vax1, vax2 - T.int64(1), vax3 - T.int64(1)], T.float32(0.0))
        for ax0_ax2_ax3_0_fused in T.parallel(T.int64(7)):
            for ax1_0 in range(T.int64(8)):
                for ax1_1_init in T.unroll(T.int64(2)):
                    for ax3_1_init in T.unroll(T.int64(7)):
                        for ax3_2_init in T.vectorized(T.int64(1)):
                            with T.block("conv2d_nchw_init"):
                                vax0 = T.axis.spatial(T.int64(1), T.int64(0))
                                vax1 = T.axis.spatial(T.int64(16), ax1_0 * T.int64(2) + ax1_1_init)
                                vax2 = T.axis.spatial(T.int64(7), ax0_ax2_ax3_0_fused)
                                vax3 = T.axis.spatial(T.int64(7), ax3_1_init + ax3_2_init)
                                T.reads()
                                T.writes(conv2d_nchw_local[vax0, vax1, vax2, vax3])
                                conv2d_nchw_local[vax0, vax1, vax2, vax3] = T.float32(0.0)
                for rc, rh, rw in T.grid(T.int64(8), T.int64(3), T.int64(3)):
                    for ax1_1 in T.unroll(T.int64(2)):
                        for ax3_1 in T.unroll(T.int64(7)):
                            for ax3_2 in range(T.int64(1)):
                                with T.block("conv2d_nchw_update"):
                                    vax0 = T.axis.spatial(T.int64(1), T.int64(0))
                                    vax1 = T.axis.spatial(T.int64(16), ax1_0 * T.int64(2) + ax1_1)
                                    vax2 = T.axis.spatial(T.int64(7), ax0_ax2_ax3_0_fused)
                                    vax3 = T.axis.spatial(T.int64(7), ax3_1 + ax3_2)
                                    vrc = T.axis.reduce(T.int64(8), rc)
                                    vrh = T.axis.reduce(T.int64(3), rh)
                                    vrw = T.axis.reduce(T.int64(3), rw)
                                    T.reads(conv2d_nchw_local[vax0, vax1, vax2, vax3], pad_temp[vax0, vrc, vax2 + vrh, vax3 + vrw], weight[vax1, vrc, vrh, vrw])
                                    T.writes(conv2d_nchw_local[vax0, vax1, vax2, vax3])
                                    conv2d_nchw_local[vax0, vax1, vax2, vax3] = conv2d_nchw_local[vax0, vax1, vax2, vax3] + pad_temp[vax0, vrc, vax2 + vrh, vax3 + vrw] * weight[vax1, vrc, vrh, vrw]
                for ax0_1 in T.unroll(T.int64(2)):
                    for ax1_2_0 in T.unroll(T.int64(7)):
                        for ax1_2_1 in T.vectorized(T.int64(1)):
                            with T.block("conv2d_nchw_local"):
                                v0 = T.axis.spatial(T.int64(1), T.int64(0))
                                v1 = T.axis.spatial(T.int64(16), ax1_0 * T.int64(2) + ax0_1)
                                v2 = T.axis.spatial(T.int64(7), ax0_ax2_ax3_0_fused)
                                v3 = T.axis.spatial(T.int64(7), ax1_2_0 + ax1_2_1)
                                T.reads(conv2d_nchw_local[v0, v1, v2, v3])
                                T.writes(conv2d_nchw[v0, v1, v2, v3])
                                conv2d_nchw[v0, v1, v2, v3] = conv2d_nchw_local[v0, v1, v2, v3]
