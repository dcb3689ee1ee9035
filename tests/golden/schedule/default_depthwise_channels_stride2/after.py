from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def fused_conv2d_add_relu(x: T.Buffer((T.int64(1), T.int64(32), T.int64(28), T.int64(28)), "float32"), w: T.Buffer((T.int64(2), T.int64(1), T.int64(3), T.int64(3), T.int64(16)), "float32"), b: T.Buffer((T.int64(1), T.int64(32), T.int64(1), T.int64(1)), "float32"), relu: T.Buffer((T.int64(1), T.int64(32), T.int64(14), T.int64(14)), "float32")):
        T.func_attr({"global_symbol": "fused_conv2d_add_relu", "tir.noalias": T.bool(True), "fused_ops": "conv2d+add+relu", "layout_free_buffers": [1], "layout_rewrites": [[1, "lambda a0, a1, a2, a3: (a0 // 16, a1, a2, a3, a0 % 16)"]]})
        lv0 = T.alloc_buffer((T.int64(1), T.int64(32), T.int64(14), T.int64(14)))
        pad_temp = T.alloc_buffer((T.int64(1), T.int64(2), T.int64(30), T.int64(30), T.int64(16)))
        lv0_local = T.alloc_buffer((T.int64(1), T.int64(14), T.int64(14), T.int64(32)), scope="local")
        for ax0_ax1_ax2_fused in T.parallel(T.int64(960)):
            for ax3 in range(T.int64(30)):
                with T.block("pad_temp"):
                    vax0 = T.axis.spatial(T.int64(1), T.int64(0))
                    vax1 = T.axis.spatial(T.int64(32), ax0_ax1_ax2_fused // T.int64(30))
                    vax2 = T.axis.spatial(T.int64(30), ax0_ax1_ax2_fused % T.int64(30))
                    vax3 = T.axis.spatial(T.int64(30), ax3)
                    T.reads(x[vax0, vax1, vax2 - T.int64(1), vax3 - T.int64(1)])
                    T.writes(pad_temp[vax0, vax1 // T.int64(16), vax2, vax3, vax1 % T.int64(16)])
                    pad_temp[vax0, vax1 // T.int64(16), vax2, vax3, vax1 % T.int64(16)] = T.if_then_else(vax2 >= T.int64(1) and vax2 < T.int64(29) and (vax3 >= T.int64(1) and vax3 < T.int64(29)), x[vax0, vax1, vax2 - T.int64(1), vax3 - T.int64(1)], T.float32(0.0))
        for ax0 in range(T.int64(1)):
            for ax1_0 in T.parallel(T.int64(2)):
                for ax2, ax3_0 in T.grid(T.int64(14), T.int64(1)):
                    for ax3_1_init in T.unroll(T.int64(14)):
                        for ax1_1_init in T.vectorized(T.int64(16)):
                            with T.block("conv2d_nchw_init"):
                                vax0 = T.axis.spatial(T.int64(1), ax0)
                                vax1 = T.axis.spatial(T.int64(32), ax1_0 * T.int64(16) + ax1_1_init)
                                vax2 = T.axis.spatial(T.int64(14), ax2)
                                vax3 = T.axis.spatial(T.int64(14), ax3_0 * T.int64(14) + ax3_1_init)
                                T.reads()
                                T.writes(lv0_local[vax0, vax2, vax3, vax1])
                                lv0_local[vax0, vax2, vax3, vax1] = T.float32(0.0)
                    for rc in range(T.int64(1)):
                        for rh in T.unroll(T.int64(3)):
                            for rw in T.unroll(T.int64(3)):
                                for ax3_1 in T.unroll(T.int64(14)):
                                    for ax1_1 in T.vectorized(T.int64(16)):
                                        with T.block("conv2d_nchw_update"):
                                            vax0 = T.axis.spatial(T.int64(1), ax0)
                                            vax1 = T.axis.spatial(T.int64(32), ax1_0 * T.int64(16) + ax1_1)
                                            vax2 = T.axis.spatial(T.int64(14), ax2)
                                            vax3 = T.axis.spatial(T.int64(14), ax3_0 * T.int64(14) + ax3_1)
                                            vrc = T.axis.reduce(T.int64(1), rc)
                                            vrh = T.axis.reduce(T.int64(3), rh)
                                            vrw = T.axis.reduce(T.int64(3), rw)
                                            T.reads(lv0_local[vax0, vax2, vax3, vax1], pad_temp[vax0, (vax1 + vrc) // T.int64(16), vax2 * T.int64(2) + vrh, vax3 * T.int64(2) + vrw, (vax1 + vrc) % T.int64(16)], w[vax1 // T.int64(16), vrc, vrh, vrw, vax1 % T.int64(16)])
                                            T.writes(lv0_local[vax0, vax2, vax3, vax1])
                                            lv0_local[vax0, vax2, vax3, vax1] = lv0_local[vax0, vax2, vax3, vax1] + pad_temp[vax0, (vax1 + vrc) // T.int64(16), vax2 * T.int64(2) + vrh, vax3 * T.int64(2) + vrw, (vax1 + vrc) % T.int64(16)] * w[vax1 // T.int64(16), vrc, vrh, vrw, vax1 % T.int64(16)]
                    for ax0_1, ax1_2 in T.grid(T.int64(16), T.int64(14)):
                        with T.block("lv0_local"):
                            v0 = T.axis.spatial(T.int64(1), ax0)
                            v1 = T.axis.spatial(T.int64(32), ax1_0 * T.int64(16) + ax0_1)
                            v2 = T.axis.spatial(T.int64(14), ax2)
                            v3 = T.axis.spatial(T.int64(14), ax3_0 * T.int64(14) + ax1_2)
                            T.reads(lv0_local[v0, v2, v3, v1])
                            T.writes(lv0[v0, v1, v2, v3])
                            lv0[v0, v1, v2, v3] = lv0_local[v0, v2, v3, v1]
                    for ax0_2, ax1_3 in T.grid(T.int64(16), T.int64(14)):
                        with T.block("relu"):
                            vax0 = T.axis.spatial(T.int64(1), T.int64(0))
                            vax1 = T.axis.spatial(T.int64(32), ax1_0 * T.int64(16) + ax0_2)
                            vax2 = T.axis.spatial(T.int64(14), ax2)
                            vax3 = T.axis.spatial(T.int64(14), ax3_0 * T.int64(14) + ax1_3)
                            T.reads(lv0[T.int64(0), vax1, vax2, vax3], b[T.int64(0), vax1, T.int64(0), T.int64(0)])
                            T.writes(relu[vax0, vax1, vax2, vax3])
                            relu[vax0, vax1, vax2, vax3] = T.max(lv0[T.int64(0), vax1, vax2, vax3] + b[T.int64(0), vax1, T.int64(0), T.int64(0)], T.float32(0.0))
