from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 7, 7), dtype="float32")) -> R.Tensor((1, 16, 7, 7), dtype="float32"):
        cls = Module
        with R.dataflow():
            out = R.call_tir(cls.fused_conv2d_add_relu, (x, R.const([[[[[-0.375, 0.3125, 0.0625, -0.875, -0.9375, -0.875, -0.125, -0.75]]], [[[-0.6875, -0.875, -0.25, 0.0, -0.125, -0.8125, 0.625, -0.5625]]]], [[[[0.25, 0.125, 0.9375, 0.6875, -0.6875, -0.375, -0.625, 0.25]]], [[[0.875, -0.1875, -0.9375, -0.4375, -0.75, 0.625, 0.1875, -0.25]]]]], "float32"), R.const([[[0.125]], [[-0.875]], [[-0.875]], [[-0.5625]], [[0.375]], [[-0.125]], [[-0.375]], [[0.1875]], [[-0.0625]], [[-0.375]], [[0.5625]], [[0.375]], [[-0.5]], [[0.125]], [[0.0625]], [[0.75]]], "float32")), out_sinfo=R.Tensor((1, 16, 7, 7), dtype="float32"))
            R.output(out)
        return out

    @T.prim_func
    def fused_conv2d_add_relu(x: T.Buffer((T.int64(1), T.int64(2), T.int64(7), T.int64(7)), "float32"), c1: T.Buffer((T.int64(2), T.int64(2), T.int64(1), T.int64(1), T.int64(8)), "float32"), c2: T.Buffer((T.int64(16), T.int64(1), T.int64(1)), "float32"), relu: T.Buffer((T.int64(1), T.int64(16), T.int64(7), T.int64(7)), "float32")):
        T.func_attr({"global_symbol": "fused_conv2d_add_relu", "tir.noalias": T.bool(True), "fused_ops": "conv2d+add+relu", "layout_rewrites": [[1, "lambda a0, a1, a2, a3: (a0 // 8, a1, a2, a3, a0 % 8)"]], "schedule": "default rules (avx2)"})
        c = T.alloc_buffer((T.int64(1), T.int64(16), T.int64(7), T.int64(7)))
        c_local = T.alloc_buffer((T.int64(1), T.int64(7), T.int64(7), T.int64(16)), scope="local")
        for ax1_0, ax0, ax2, ax3_0 in T.grid(T.int64(2), T.int64(1), T.int64(7), T.int64(1)):
            for ax3_1_init in T.unroll(T.int64(7)):
                for ax1_1_init in T.unroll(T.int64(1)):
                    for ax1_2_init in T.vectorized(T.int64(8)):
                        with T.block("conv2d_nchw_init"):
                            vax0 = T.axis.spatial(T.int64(1), ax0)
                            vax1 = T.axis.spatial(T.int64(16), ax1_0 * T.int64(8) + ax1_1_init * T.int64(8) + ax1_2_init)
                            vax2 = T.axis.spatial(T.int64(7), ax2)
                            vax3 = T.axis.spatial(T.int64(7), ax3_0 * T.int64(7) + ax3_1_init)
                            T.reads()
                            T.writes(c_local[vax0, vax2, vax3, vax1])
                            c_local[vax0, vax2, vax3, vax1] = T.float32(0.0)
            for rc, rh, rw in T.grid(T.int64(2), T.int64(1), T.int64(1)):
                for ax3_1 in T.unroll(T.int64(7)):
                    for ax1_1 in T.unroll(T.int64(1)):
                        for ax1_2 in T.vectorized(T.int64(8)):
                            with T.block("conv2d_nchw_update"):
                                vax0 = T.axis.spatial(T.int64(1), ax0)
                                vax1 = T.axis.spatial(T.int64(16), ax1_0 * T.int64(8) + ax1_1 * T.int64(8) + ax1_2)
                                vax2 = T.axis.spatial(T.int64(7), ax2)
                                vax3 = T.axis.spatial(T.int64(7), ax3_0 * T.int64(7) + ax3_1)
                                vrc = T.axis.reduce(T.int64(2), rc)
                                vrh = T.axis.reduce(T.int64(1), rh)
                                vrw = T.axis.reduce(T.int64(1), rw)
                                T.reads(c_local[vax0, vax2, vax3, vax1], x[vax0, vrc, vax2 + vrh, vax3 + vrw], c1[vax1 // T.int64(8), vrc, vrh, vrw, vax1 % T.int64(8)])
                                T.writes(c_local[vax0, vax2, vax3, vax1])
                                c_local[vax0, vax2, vax3, vax1] = c_local[vax0, vax2, vax3, vax1] + x[vax0, vrc, vax2 + vrh, vax3 + vrw] * c1[vax1 // T.int64(8), vrc, vrh, vrw, vax1 % T.int64(8)]
            for ax0_1, ax1_3 in T.grid(T.int64(8), T.int64(7)):
                with T.block("c_local"):
                    v0 = T.axis.spatial(T.int64(1), ax0)
                    v1 = T.axis.spatial(T.int64(16), ax1_0 * T.int64(8) + ax0_1)
                    v2 = T.axis.spatial(T.int64(7), ax2)
                    v3 = T.axis.spatial(T.int64(7), ax3_0 * T.int64(7) + ax1_3)
                    T.reads(c_local[v0, v2, v3, v1])
                    T.writes(c[v0, v1, v2, v3])
                    c[v0, v1, v2, v3] = c_local[v0, v2, v3, v1]
            for ax0_2, ax1_4 in T.grid(T.int64(8), T.int64(7)):
                with T.block("relu"):
                    vax0 = T.axis.spatial(T.int64(1), T.int64(0))
                    vax1 = T.axis.spatial(T.int64(16), ax1_0 * T.int64(8) + ax0_2)
                    vax2 = T.axis.spatial(T.int64(7), ax2)
                    vax3 = T.axis.spatial(T.int64(7), ax3_0 * T.int64(7) + ax1_4)
                    T.reads(c[T.int64(0), vax1, vax2, vax3], c2[vax1, T.int64(0), T.int64(0)])
                    T.writes(relu[vax0, vax1, vax2, vax3])
                    relu[vax0, vax1, vax2, vax3] = T.max(c[T.int64(0), vax1, vax2, vax3] + c2[vax1, T.int64(0), T.int64(0)], T.float32(0.0))

