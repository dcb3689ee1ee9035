from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def conv_add(relu_13: T.Buffer((T.int64(1), T.int64(16), T.int64(7), T.int64(7)), "float32"), c1: T.Buffer((T.int64(4), T.int64(16), T.int64(3), T.int64(3), T.int64(8)), "float32"), c2: T.Buffer((T.int64(32), T.int64(1), T.int64(1)), "float32"), add: T.Buffer((T.int64(1), T.int64(32), T.int64(7), T.int64(7)), "float32")):
        T.func_attr({"global_symbol": "conv_add", "tir.noalias": T.bool(True), "fused_ops": "conv2d+add", "layout_free_buffers": [1], "layout_rewrites": [[1, "lambda a0, a1, a2, a3: (a0 // 8, a1, a2, a3, a0 % 8)"]]})
        conv_16 = T.alloc_buffer((T.int64(1), T.int64(32), T.int64(7), T.int64(7)))
        pad_temp = T.alloc_buffer((T.int64(1), T.int64(16), T.int64(9), T.int64(9)))
        conv_16_local = T.alloc_buffer((T.int64(1), T.int64(7), T.int64(7), T.int64(32)), scope="local")
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(16), T.int64(9), T.int64(9)):
            with T.block("pad_temp"):
                vax0, vax1, vax2, vax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(relu_13[vax0, vax1, vax2 - T.int64(1), vax3 - T.int64(1)])
                T.writes(pad_temp[vax0, vax1, vax2, vax3])
                pad_temp[vax0, vax1, vax2, vax3] = T.if_then_else(vax2 >= T.int64(1) and vax2 < T.int64(8) and (vax3 >= T.int64(1) and vax3 < T.int64(8)), relu_13[vax0, vax1, vax2 - T.int64(1), vax3 - T.int64(1)], T.float32(0.0))
        for ax1_0 in T.parallel(T.int64(4)):
            for ax0, ax2, ax3_0 in T.grid(T.int64(1), T.int64(7), T.int64(1)):
                for ax3_1_init in T.unroll(T.int64(7)):
                    for ax1_1_init in T.unroll(T.int64(1)):
                        for ax1_2_init in T.vectorized(T.int64(8)):
                            with T.block("conv2d_nchw_init"):
                                vax0 = T.axis.spatial(T.int64(1), ax0)
                                vax1 = T.axis.spatial(T.int64(32), ax1_0 * T.int64(8) + ax1_1_init * T.int64(8) + ax1_2_init)
                                vax2 = T.axis.spatial(T.int64(7), ax2)
                                vax3 = T.axis.spatial(T.int64(7), ax3_0 * T.int64(7) + ax3_1_init)
                                T.reads()
                                T.writes(conv_16_local[vax0, vax2, vax3, vax1])
                                conv_16_local[vax0, vax2, vax3, vax1] = T.float32(0.0)
                for rc, rh, rw in T.grid(T.int64(16), T.int64(3), T.int64(3)):
                    for ax3_1 in T.unroll(T.int64(7)):
                        for ax1_1 in T.unroll(T.int64(1)):
                            for ax1_2 in T.vectorized(T.int64(8)):
                                with T.block("conv2d_nchw_update"):
                                    vax0 = T.axis.spatial(T.int64(1), ax0)
                                    vax1 = T.axis.spatial(T.int64(32), ax1_0 * T.int64(8) + ax1_1 * T.int64(8) + ax1_2)
                                    vax2 = T.axis.spatial(T.int64(7), ax2)
                                    vax3 = T.axis.spatial(T.int64(7), ax3_0 * T.int64(7) + ax3_1)
                                    vrc = T.axis.reduce(T.int64(16), rc)
                                    vrh = T.axis.reduce(T.int64(3), rh)
                                    vrw = T.axis.reduce(T.int64(3), rw)
                                    T.reads(conv_16_local[vax0, vax2, vax3, vax1], pad_temp[vax0, vrc, vax2 + vrh, vax3 + vrw], c1[vax1 // T.int64(8), vrc, vrh, vrw, vax1 % T.int64(8)])
                                    T.writes(conv_16_local[vax0, vax2, vax3, vax1])
                                    conv_16_local[vax0, vax2, vax3, vax1] = conv_16_local[vax0, vax2, vax3, vax1] + pad_temp[vax0, vrc, vax2 + vrh, vax3 + vrw] * c1[vax1 // T.int64(8), vrc, vrh, vrw, vax1 % T.int64(8)]
                for ax0_1, ax1_3 in T.grid(T.int64(8), T.int64(7)):
                    with T.block("conv_16_local"):
                        v0 = T.axis.spatial(T.int64(1), ax0)
                        v1 = T.axis.spatial(T.int64(32), ax1_0 * T.int64(8) + ax0_1)
                        v2 = T.axis.spatial(T.int64(7), ax2)
                        v3 = T.axis.spatial(T.int64(7), ax3_0 * T.int64(7) + ax1_3)
                        T.reads(conv_16_local[v0, v2, v3, v1])
                        T.writes(conv_16[v0, v1, v2, v3])
                        conv_16[v0, v1, v2, v3] = conv_16_local[v0, v2, v3, v1]
                for ax0_2, ax1_4 in T.grid(T.int64(8), T.int64(7)):
                    with T.block("add"):
                        vax0 = T.axis.spatial(T.int64(1), T.int64(0))
                        vax1 = T.axis.spatial(T.int64(32), ax1_0 * T.int64(8) + ax0_2)
                        vax2 = T.axis.spatial(T.int64(7), ax2)
                        vax3 = T.axis.spatial(T.int64(7), ax3_0 * T.int64(7) + ax1_4)
                        T.reads(conv_16[T.int64(0), vax1, vax2, vax3], c2[vax1, T.int64(0), T.int64(0)])
                        T.writes(add[vax0, vax1, vax2, vax3])
                        add[vax0, vax1, vax2, vax3] = conv_16[T.int64(0), vax1, vax2, vax3] + c2[vax1, T.int64(0), T.int64(0)]
