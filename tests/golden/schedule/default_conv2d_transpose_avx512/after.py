from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def fused_conv2d_transpose_add_relu(x: T.Buffer((T.int64(1), T.int64(8), T.int64(6), T.int64(8)), "float32"), w: T.Buffer((T.int64(8), T.int64(16), T.int64(2), T.int64(2)), "float32"), b: T.Buffer((T.int64(1), T.int64(16), T.int64(1), T.int64(1)), "float32"), relu: T.Buffer((T.int64(1), T.int64(16), T.int64(12), T.int64(16)), "float32")):
        T.func_attr({"global_symbol": "fused_conv2d_transpose_add_relu", "tir.noalias": T.bool(True), "fused_ops": "conv2d_transpose+add+relu"})
        lv0 = T.alloc_buffer((T.int64(1), T.int64(16), T.int64(12), T.int64(16)))
        lv0_local = T.alloc_buffer((T.int64(1), T.int64(16), T.int64(2), T.int64(2), T.int64(6), T.int64(8)), scope="local")
        for ax0 in range(T.int64(1)):
            for ax1 in T.parallel(T.int64(16)):
                for ax2_0, ax3_0 in T.grid(T.int64(6), T.int64(1)):
                    for ax2_1_init in T.unroll(T.int64(2)):
                        for ax3_3_init in T.unroll(T.int64(2)):
                            for ax3_1_init in T.unroll(T.int64(1)):
                                for ax3_2_init in T.vectorized(T.int64(8)):
                                    with T.block("conv2d_transpose_nchw_init"):
                                        vax0 = T.axis.spatial(T.int64(1), ax0)
                                        vax1 = T.axis.spatial(T.int64(16), ax1)
                                        vax2 = T.axis.spatial(T.int64(12), ax2_0 * T.int64(2) + ax2_1_init)
                                        vax3 = T.axis.spatial(T.int64(16), ax3_0 * T.int64(16) + ax3_1_init * T.int64(16) + ax3_2_init * T.int64(2) + ax3_3_init)
                                        T.reads()
                                        T.writes(lv0_local[vax0, vax1, vax2 % T.int64(2), vax3 % T.int64(2), vax2 // T.int64(2), vax3 // T.int64(2)])
                                        lv0_local[vax0, vax1, vax2 % T.int64(2), vax3 % T.int64(2), vax2 // T.int64(2), vax3 // T.int64(2)] = T.float32(0.0)
                    for rh, rw, rc in T.grid(T.int64(1), T.int64(1), T.int64(8)):
                        for ax2_1 in T.unroll(T.int64(2)):
                            for ax3_3 in T.unroll(T.int64(2)):
                                for ax3_1 in T.unroll(T.int64(1)):
                                    for ax3_2 in T.vectorized(T.int64(8)):
                                        with T.block("conv2d_transpose_nchw_update"):
                                            vax0 = T.axis.spatial(T.int64(1), ax0)
                                            vax1 = T.axis.spatial(T.int64(16), ax1)
                                            vax2 = T.axis.spatial(T.int64(12), ax2_0 * T.int64(2) + ax2_1)
                                            vax3 = T.axis.spatial(T.int64(16), ax3_0 * T.int64(16) + ax3_1 * T.int64(16) + ax3_2 * T.int64(2) + ax3_3)
                                            vrc = T.axis.reduce(T.int64(8), rc)
                                            vrh = T.axis.reduce(T.int64(1), rh)
                                            vrw = T.axis.reduce(T.int64(1), rw)
                                            T.reads(lv0_local[vax0, vax1, vax2 % T.int64(2), vax3 % T.int64(2), vax2 // T.int64(2), vax3 // T.int64(2)], x[vax0, vrc, vax2 // T.int64(2), vax3 // T.int64(2)], w[vrc, vax1, vax2 % T.int64(2), vax3 % T.int64(2)])
                                            T.writes(lv0_local[vax0, vax1, vax2 % T.int64(2), vax3 % T.int64(2), vax2 // T.int64(2), vax3 // T.int64(2)])
                                            lv0_local[vax0, vax1, vax2 % T.int64(2), vax3 % T.int64(2), vax2 // T.int64(2), vax3 // T.int64(2)] = lv0_local[vax0, vax1, vax2 % T.int64(2), vax3 % T.int64(2), vax2 // T.int64(2), vax3 // T.int64(2)] + x[vax0, vrc, vax2 // T.int64(2), vax3 // T.int64(2)] * w[vrc, vax1, vax2 % T.int64(2), vax3 % T.int64(2)]
                    for ax0_1 in T.unroll(T.int64(2)):
                        for ax1_1_0 in range(T.int64(8)):
                            for ax1_1_1 in T.unroll(T.int64(2)):
                                with T.block("lv0_local"):
                                    v0 = T.axis.spatial(T.int64(1), ax0)
                                    v1 = T.axis.spatial(T.int64(16), ax1)
                                    v2 = T.axis.spatial(T.int64(12), ax2_0 * T.int64(2) + ax0_1)
                                    v3 = T.axis.spatial(T.int64(16), ax3_0 * T.int64(16) + ax1_1_0 * T.int64(2) + ax1_1_1)
                                    T.reads(lv0_local[v0, v1, v2 % T.int64(2), v3 % T.int64(2), v2 // T.int64(2), v3 // T.int64(2)])
                                    T.writes(lv0[v0, v1, v2, v3])
                                    lv0[v0, v1, v2, v3] = lv0_local[v0, v1, v2 % T.int64(2), v3 % T.int64(2), v2 // T.int64(2), v3 // T.int64(2)]
                    for ax0_2, ax1_1 in T.grid(T.int64(2), T.int64(16)):
                        with T.block("relu"):
                            vax0 = T.axis.spatial(T.int64(1), T.int64(0))
                            vax1 = T.axis.spatial(T.int64(16), ax1)
                            vax2 = T.axis.spatial(T.int64(12), ax2_0 * T.int64(2) + ax0_2)
                            vax3 = T.axis.spatial(T.int64(16), ax3_0 * T.int64(16) + ax1_1)
                            T.reads(lv0[T.int64(0), vax1, vax2, vax3], b[T.int64(0), vax1, T.int64(0), T.int64(0)])
                            T.writes(relu[vax0, vax1, vax2, vax3])
                            relu[vax0, vax1, vax2, vax3] = T.max(lv0[T.int64(0), vax1, vax2, vax3] + b[T.int64(0), vax1, T.int64(0), T.int64(0)], T.float32(0.0))
