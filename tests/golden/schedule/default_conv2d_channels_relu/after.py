from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def conv_add_relu(x: T.Buffer((T.int64(1), T.int64(16), T.int64(14), T.int64(14)), "float32"), c1: T.Buffer((T.int64(4), T.int64(16), T.int64(3), T.int64(3), T.int64(16)), "float32"), c2: T.Buffer((T.int64(64), T.int64(1), T.int64(1)), "float32"), relu: T.Buffer((T.int64(1), T.int64(64), T.int64(14), T.int64(14)), "float32")):
        T.func_attr({"global_symbol": "conv_add_relu", "tir.noalias": T.bool(True), "fused_ops": "conv2d+add+relu", "layout_free_buffers": [1], "layout_rewrites": [[1, "lambda a0, a1, a2, a3: (a0 // 16, a1, a2, a3, a0 % 16)"]]})
        pad_temp = T.alloc_buffer((T.int64(1), T.int64(16), T.int64(16), T.int64(16)))
        conv_local = T.alloc_buffer((T.int64(1), T.int64(14), T.int64(14), T.int64(64)), scope="local")
        for ax0_ax1_ax2_fused in T.parallel(T.int64(256)):
            for ax3 in range(T.int64(16)):
                with T.block("pad_temp"):
                    vax0 = T.axis.spatial(T.int64(1), T.int64(0))
                    vax1 = T.axis.spatial(T.int64(16), ax0_ax1_ax2_fused // T.int64(16))
                    vax2 = T.axis.spatial(T.int64(16), ax0_ax1_ax2_fused % T.int64(16))
                    vax3 = T.axis.spatial(T.int64(16), ax3)
                    T.reads(x[vax0, vax1, vax2 - T.int64(1), vax3 - T.int64(1)])
                    T.writes(pad_temp[vax0, vax1, vax2, vax3])
                    pad_temp[vax0, vax1, vax2, vax3] = T.if_then_else(vax2 >= T.int64(1) and vax2 < T.int64(15) and (vax3 >= T.int64(1) and vax3 < T.int64(15)), x[vax0, vax1, vax2 - T.int64(1), vax3 - T.int64(1)], T.float32(0.0))
        for ax1_0_ax0_ax2_fused in T.parallel(T.int64(28)):
            for ax3_0 in range(T.int64(1)):
                for ax3_1_init in T.unroll(T.int64(14)):
                    for ax1_1_init in T.unroll(T.int64(2)):
                        for ax1_2_init in T.vectorized(T.int64(16)):
                            with T.block("conv2d_nchw_init"):
                                vax0 = T.axis.spatial(T.int64(1), T.int64(0))
                                vax1 = T.axis.spatial(T.int64(64), ax1_0_ax0_ax2_fused // T.int64(14) * T.int64(32) + ax1_1_init * T.int64(16) + ax1_2_init)
                                vax2 = T.axis.spatial(T.int64(14), ax1_0_ax0_ax2_fused % T.int64(14))
                                vax3 = T.axis.spatial(T.int64(14), ax3_0 * T.int64(14) + ax3_1_init)
                                T.reads()
                                T.writes(conv_local[vax0, vax2, vax3, vax1])
                                conv_local[vax0, vax2, vax3, vax1] = T.float32(0.0)
                for rh, rw, rc in T.grid(T.int64(3), T.int64(3), T.int64(16)):
                    for ax3_1 in T.unroll(T.int64(14)):
                        for ax1_1 in T.unroll(T.int64(2)):
                            for ax1_2 in T.vectorized(T.int64(16)):
                                with T.block("conv2d_nchw_update"):
                                    vax0 = T.axis.spatial(T.int64(1), T.int64(0))
                                    vax1 = T.axis.spatial(T.int64(64), ax1_0_ax0_ax2_fused // T.int64(14) * T.int64(32) + ax1_1 * T.int64(16) + ax1_2)
                                    vax2 = T.axis.spatial(T.int64(14), ax1_0_ax0_ax2_fused % T.int64(14))
                                    vax3 = T.axis.spatial(T.int64(14), ax3_0 * T.int64(14) + ax3_1)
                                    vrc = T.axis.reduce(T.int64(16), rc)
                                    vrh = T.axis.reduce(T.int64(3), rh)
                                    vrw = T.axis.reduce(T.int64(3), rw)
                                    T.reads(conv_local[vax0, vax2, vax3, vax1], pad_temp[vax0, vrc, vax2 + vrh, vax3 + vrw], c1[vax1 // T.int64(16), vrc, vrh, vrw, vax1 % T.int64(16)])
                                    T.writes(conv_local[vax0, vax2, vax3, vax1])
                                    conv_local[vax0, vax2, vax3, vax1] = conv_local[vax0, vax2, vax3, vax1] + pad_temp[vax0, vrc, vax2 + vrh, vax3 + vrw] * c1[vax1 // T.int64(16), vrc, vrh, vrw, vax1 % T.int64(16)]
                for ax0_1, ax1_3 in T.grid(T.int64(32), T.int64(14)):
                    with T.block("conv_local"):
                        v0 = T.axis.spatial(T.int64(1), T.int64(0))
                        v1 = T.axis.spatial(T.int64(64), ax1_0_ax0_ax2_fused // T.int64(14) * T.int64(32) + ax0_1)
                        v2 = T.axis.spatial(T.int64(14), ax1_0_ax0_ax2_fused % T.int64(14))
                        v3 = T.axis.spatial(T.int64(14), ax3_0 * T.int64(14) + ax1_3)
                        T.reads(conv_local[T.int64(0), v2, v3, v1], c2[v1, T.int64(0), T.int64(0)])
                        T.writes(relu[T.int64(0), v1, v2, v3])
                        relu[T.int64(0), v1, v2, v3] = T.max(conv_local[T.int64(0), v2, v3, v1] + c2[v1, T.int64(0), T.int64(0)], T.float32(0.0))
