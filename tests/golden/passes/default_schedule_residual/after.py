from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 4, 8, 8), dtype="float32"), w1: R.Tensor((4, 4, 3, 3), dtype="float32"), w2: R.Tensor((4, 4, 3, 3), dtype="float32"), b: R.Tensor((1, 4, 1, 1), dtype="float32")) -> R.Tensor((1, 4, 8, 8), dtype="float32"):
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.relu, (x,), out_sinfo=R.Tensor((1, 4, 8, 8), dtype="float32"))
            r1 = R.call_tir(cls.fused_conv2d_add_relu, (a, w1, b), out_sinfo=R.Tensor((1, 4, 8, 8), dtype="float32"))
            out = R.call_tir(cls.fused_conv2d_add_relu1, (r1, w2, a), out_sinfo=R.Tensor((1, 4, 8, 8), dtype="float32"))
            R.output(out)
        return out

    @T.prim_func
    def relu(data: T.Buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)), "float32"), relu: T.Buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)), "float32")):
        T.func_attr({"global_symbol": "relu", "tir.noalias": T.bool(True), "schedule": "default rules (avx2)"})
        for ax0, ax1, ax2, ax3_0 in T.grid(T.int64(1), T.int64(4), T.int64(8), T.int64(1)):
            for ax3_1 in T.vectorized(T.int64(8)):
                with T.block("relu"):
                    vax0 = T.axis.spatial(T.int64(1), ax0)
                    vax1 = T.axis.spatial(T.int64(4), ax1)
                    vax2 = T.axis.spatial(T.int64(8), ax2)
                    vax3 = T.axis.spatial(T.int64(8), ax3_0 * T.int64(8) + ax3_1)
                    T.reads(data[T.int64(0), vax1, vax2, vax3])
                    T.writes(relu[vax0, vax1, vax2, vax3])
                    relu[vax0, vax1, vax2, vax3] = T.max(data[T.int64(0), vax1, vax2, vax3], T.float32(0.0))

    @T.prim_func
    def conv2d(data: T.Buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)), "float32"), weight: T.Buffer((T.int64(4), T.int64(4), T.int64(3), T.int64(3)), "float32"), conv2d_nchw: T.Buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)), "float32")):
        T.func_attr({"global_symbol": "conv2d", "tir.noalias": T.bool(True), "schedule": "default rules (avx2)"})
        pad_temp = T.alloc_buffer((T.int64(1), T.int64(4), T.int64(10), T.int64(10)))
        conv2d_nchw_local = T.alloc_buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)), scope="local")
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(4), T.int64(10), T.int64(10)):
            with T.block("pad_temp"):
                vax0, vax1, vax2, vax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(data[vax0, vax1, vax2 - T.int64(1), vax3 - T.int64(1)])
                T.writes(pad_temp[vax0, vax1, vax2, vax3])
                pad_temp[vax0, vax1, vax2, vax3] = T.if_then_else(vax2 >= T.int64(1) and vax2 < T.int64(9) and (vax3 >= T.int64(1) and vax3 < T.int64(9)), data[vax0, vax1, vax2 - T.int64(1), vax3 - T.int64(1)], T.float32(0.0))
        for ax0_ax2_ax3_0_fused in T.parallel(T.int64(8)):
            for ax1_0 in range(T.int64(1)):
                for ax1_1_init in T.unroll(T.int64(4)):
                    for ax3_1_init in T.unroll(T.int64(1)):
                        for ax3_2_init in T.vectorized(T.int64(8)):
                            with T.block("conv2d_nchw_init"):
                                vax0 = T.axis.spatial(T.int64(1), T.int64(0))
                                vax1 = T.axis.spatial(T.int64(4), ax1_0 * T.int64(4) + ax1_1_init)
                                vax2 = T.axis.spatial(T.int64(8), ax0_ax2_ax3_0_fused)
                                vax3 = T.axis.spatial(T.int64(8), ax3_1_init * T.int64(8) + ax3_2_init)
                                T.reads()
                                T.writes(conv2d_nchw_local[vax0, vax1, vax2, vax3])
                                conv2d_nchw_local[vax0, vax1, vax2, vax3] = T.float32(0.0)
                for rc, rh, rw in T.grid(T.int64(4), T.int64(3), T.int64(3)):
                    for ax1_1 in T.unroll(T.int64(4)):
                        for ax3_1 in T.unroll(T.int64(1)):
                            for ax3_2 in T.vectorized(T.int64(8)):
                                with T.block("conv2d_nchw_update"):
                                    vax0 = T.axis.spatial(T.int64(1), T.int64(0))
                                    vax1 = T.axis.spatial(T.int64(4), ax1_0 * T.int64(4) + ax1_1)
                                    vax2 = T.axis.spatial(T.int64(8), ax0_ax2_ax3_0_fused)
                                    vax3 = T.axis.spatial(T.int64(8), ax3_1 * T.int64(8) + ax3_2)
                                    vrc = T.axis.reduce(T.int64(4), rc)
                                    vrh = T.axis.reduce(T.int64(3), rh)
                                    vrw = T.axis.reduce(T.int64(3), rw)
                                    T.reads(conv2d_nchw_local[vax0, vax1, vax2, vax3], pad_temp[vax0, vrc, vax2 + vrh, vax3 + vrw], weight[vax1, vrc, vrh, vrw])
                                    T.writes(conv2d_nchw_local[vax0, vax1, vax2, vax3])
                                    conv2d_nchw_local[vax0, vax1, vax2, vax3] = conv2d_nchw_local[vax0, vax1, vax2, vax3] + pad_temp[vax0, vrc, vax2 + vrh, vax3 + vrw] * weight[vax1, vrc, vrh, vrw]
                for ax0_1 in T.unroll(T.int64(4)):
                    for ax1_2 in T.vectorized(T.int64(8)):
                        with T.block("conv2d_nchw_local"):
                            v0 = T.axis.spatial(T.int64(1), T.int64(0))
                            v1 = T.axis.spatial(T.int64(4), ax1_0 * T.int64(4) + ax0_1)
                            v2 = T.axis.spatial(T.int64(8), ax0_ax2_ax3_0_fused)
                            v3 = T.axis.spatial(T.int64(8), ax1_2)
                            T.reads(conv2d_nchw_local[v0, v1, v2, v3])
                            T.writes(conv2d_nchw[v0, v1, v2, v3])
                            conv2d_nchw[v0, v1, v2, v3] = conv2d_nchw_local[v0, v1, v2, v3]

    @T.prim_func
    def add(x1: T.Buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)), "float32"), x2: T.Buffer((T.int64(1), T.int64(4), T.int64(1), T.int64(1)), "float32"), add: T.Buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)), "float32")):
        T.func_attr({"global_symbol": "add", "tir.noalias": T.bool(True), "schedule": "default rules (avx2)"})
        for ax0, ax1, ax2, ax3_0 in T.grid(T.int64(1), T.int64(4), T.int64(8), T.int64(1)):
            for ax3_1 in T.vectorized(T.int64(8)):
                with T.block("add"):
                    vax0 = T.axis.spatial(T.int64(1), ax0)
                    vax1 = T.axis.spatial(T.int64(4), ax1)
                    vax2 = T.axis.spatial(T.int64(8), ax2)
                    vax3 = T.axis.spatial(T.int64(8), ax3_0 * T.int64(8) + ax3_1)
                    T.reads(x1[T.int64(0), vax1, vax2, vax3], x2[T.int64(0), vax1, T.int64(0), T.int64(0)])
                    T.writes(add[vax0, vax1, vax2, vax3])
                    add[vax0, vax1, vax2, vax3] = x1[T.int64(0), vax1, vax2, vax3] + x2[T.int64(0), vax1, T.int64(0), T.int64(0)]

    @T.prim_func
    def add1(x1: T.Buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)), "float32"), x2: T.Buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)), "float32"), add: T.Buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)), "float32")):
        T.func_attr({"global_symbol": "add1", "tir.noalias": T.bool(True), "schedule": "default rules (avx2)"})
        for ax0, ax1, ax2, ax3_0 in T.grid(T.int64(1), T.int64(4), T.int64(8), T.int64(1)):
            for ax3_1 in T.vectorized(T.int64(8)):
                with T.block("add"):
                    vax0 = T.axis.spatial(T.int64(1), ax0)
                    vax1 = T.axis.spatial(T.int64(4), ax1)
                    vax2 = T.axis.spatial(T.int64(8), ax2)
                    vax3 = T.axis.spatial(T.int64(8), ax3_0 * T.int64(8) + ax3_1)
                    T.reads(x1[T.int64(0), vax1, vax2, vax3], x2[T.int64(0), vax1, vax2, vax3])
                    T.writes(add[vax0, vax1, vax2, vax3])
                    add[vax0, vax1, vax2, vax3] = x1[T.int64(0), vax1, vax2, vax3] + x2[T.int64(0), vax1, vax2, vax3]

    @T.prim_func
    def fused_conv2d_add_relu(a: T.Buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)), "float32"), w1: T.Buffer((T.int64(4), T.int64(4), T.int64(3), T.int64(3)), "float32"), b: T.Buffer((T.int64(1), T.int64(4), T.int64(1), T.int64(1)), "float32"), relu: T.Buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)), "float32")):
        T.func_attr({"global_symbol": "fused_conv2d_add_relu", "tir.noalias": T.bool(True), "fused_ops": "conv2d+add+relu", "schedule": "default rules (avx2)"})
        c1 = T.alloc_buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)))
        pad_temp = T.alloc_buffer((T.int64(1), T.int64(4), T.int64(10), T.int64(10)))
        c1_local = T.alloc_buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)), scope="local")
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(4), T.int64(10), T.int64(10)):
            with T.block("pad_temp"):
                vax0, vax1, vax2, vax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(a[vax0, vax1, vax2 - T.int64(1), vax3 - T.int64(1)])
                T.writes(pad_temp[vax0, vax1, vax2, vax3])
                pad_temp[vax0, vax1, vax2, vax3] = T.if_then_else(vax2 >= T.int64(1) and vax2 < T.int64(9) and (vax3 >= T.int64(1) and vax3 < T.int64(9)), a[vax0, vax1, vax2 - T.int64(1), vax3 - T.int64(1)], T.float32(0.0))
        for ax0_ax2_ax3_0_fused in T.parallel(T.int64(8)):
            for ax1_0 in range(T.int64(1)):
                for ax1_1_init in T.unroll(T.int64(4)):
                    for ax3_1_init in T.unroll(T.int64(1)):
                        for ax3_2_init in T.vectorized(T.int64(8)):
                            with T.block("conv2d_nchw_init"):
                                vax0 = T.axis.spatial(T.int64(1), T.int64(0))
                                vax1 = T.axis.spatial(T.int64(4), ax1_0 * T.int64(4) + ax1_1_init)
                                vax2 = T.axis.spatial(T.int64(8), ax0_ax2_ax3_0_fused)
                                vax3 = T.axis.spatial(T.int64(8), ax3_1_init * T.int64(8) + ax3_2_init)
                                T.reads()
                                T.writes(c1_local[vax0, vax1, vax2, vax3])
                                c1_local[vax0, vax1, vax2, vax3] = T.float32(0.0)
                for rc, rh, rw in T.grid(T.int64(4), T.int64(3), T.int64(3)):
                    for ax1_1 in T.unroll(T.int64(4)):
                        for ax3_1 in T.unroll(T.int64(1)):
                            for ax3_2 in T.vectorized(T.int64(8)):
                                with T.block("conv2d_nchw_update"):
                                    vax0 = T.axis.spatial(T.int64(1), T.int64(0))
                                    vax1 = T.axis.spatial(T.int64(4), ax1_0 * T.int64(4) + ax1_1)
                                    vax2 = T.axis.spatial(T.int64(8), ax0_ax2_ax3_0_fused)
                                    vax3 = T.axis.spatial(T.int64(8), ax3_1 * T.int64(8) + ax3_2)
                                    vrc = T.axis.reduce(T.int64(4), rc)
                                    vrh = T.axis.reduce(T.int64(3), rh)
                                    vrw = T.axis.reduce(T.int64(3), rw)
                                    T.reads(c1_local[vax0, vax1, vax2, vax3], pad_temp[vax0, vrc, vax2 + vrh, vax3 + vrw], w1[vax1, vrc, vrh, vrw])
                                    T.writes(c1_local[vax0, vax1, vax2, vax3])
                                    c1_local[vax0, vax1, vax2, vax3] = c1_local[vax0, vax1, vax2, vax3] + pad_temp[vax0, vrc, vax2 + vrh, vax3 + vrw] * w1[vax1, vrc, vrh, vrw]
                for ax0_1 in T.unroll(T.int64(4)):
                    for ax1_2 in T.vectorized(T.int64(8)):
                        with T.block("c1_local"):
                            v0 = T.axis.spatial(T.int64(1), T.int64(0))
                            v1 = T.axis.spatial(T.int64(4), ax1_0 * T.int64(4) + ax0_1)
                            v2 = T.axis.spatial(T.int64(8), ax0_ax2_ax3_0_fused)
                            v3 = T.axis.spatial(T.int64(8), ax1_2)
                            T.reads(c1_local[v0, v1, v2, v3])
                            T.writes(c1[v0, v1, v2, v3])
                            c1[v0, v1, v2, v3] = c1_local[v0, v1, v2, v3]
                for ax0_2 in T.unroll(T.int64(4)):
                    for ax1_3 in T.vectorized(T.int64(8)):
                        with T.block("relu"):
                            vax0 = T.axis.spatial(T.int64(1), T.int64(0))
                            vax1 = T.axis.spatial(T.int64(4), ax1_0 * T.int64(4) + ax0_2)
                            vax2 = T.axis.spatial(T.int64(8), ax0_ax2_ax3_0_fused)
                            vax3 = T.axis.spatial(T.int64(8), ax1_3)
                            T.reads(c1[T.int64(0), vax1, vax2, vax3], b[T.int64(0), vax1, T.int64(0), T.int64(0)])
                            T.writes(relu[vax0, vax1, vax2, vax3])
                            relu[vax0, vax1, vax2, vax3] = T.max(c1[T.int64(0), vax1, vax2, vax3] + b[T.int64(0), vax1, T.int64(0), T.int64(0)], T.float32(0.0))

    @T.prim_func
    def fused_conv2d_add_relu1(r1: T.Buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)), "float32"), w2: T.Buffer((T.int64(4), T.int64(4), T.int64(3), T.int64(3)), "float32"), a: T.Buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)), "float32"), relu: T.Buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)), "float32")):
        T.func_attr({"global_symbol": "fused_conv2d_add_relu1", "tir.noalias": T.bool(True), "fused_ops": "conv2d+add+relu", "schedule": "default rules (avx2)"})
        c2 = T.alloc_buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)))
        pad_temp = T.alloc_buffer((T.int64(1), T.int64(4), T.int64(10), T.int64(10)))
        c2_local = T.alloc_buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)), scope="local")
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(4), T.int64(10), T.int64(10)):
            with T.block("pad_temp"):
                vax0, vax1, vax2, vax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(r1[vax0, vax1, vax2 - T.int64(1), vax3 - T.int64(1)])
                T.writes(pad_temp[vax0, vax1, vax2, vax3])
                pad_temp[vax0, vax1, vax2, vax3] = T.if_then_else(vax2 >= T.int64(1) and vax2 < T.int64(9) and (vax3 >= T.int64(1) and vax3 < T.int64(9)), r1[vax0, vax1, vax2 - T.int64(1), vax3 - T.int64(1)], T.float32(0.0))
        for ax0_ax2_ax3_0_fused in T.parallel(T.int64(8)):
            for ax1_0 in range(T.int64(1)):
                for ax1_1_init in T.unroll(T.int64(4)):
                    for ax3_1_init in T.unroll(T.int64(1)):
                        for ax3_2_init in T.vectorized(T.int64(8)):
                            with T.block("conv2d_nchw_init"):
                                vax0 = T.axis.spatial(T.int64(1), T.int64(0))
                                vax1 = T.axis.spatial(T.int64(4), ax1_0 * T.int64(4) + ax1_1_init)
                                vax2 = T.axis.spatial(T.int64(8), ax0_ax2_ax3_0_fused)
                                vax3 = T.axis.spatial(T.int64(8), ax3_1_init * T.int64(8) + ax3_2_init)
                                T.reads()
                                T.writes(c2_local[vax0, vax1, vax2, vax3])
                                c2_local[vax0, vax1, vax2, vax3] = T.float32(0.0)
                for rc, rh, rw in T.grid(T.int64(4), T.int64(3), T.int64(3)):
                    for ax1_1 in T.unroll(T.int64(4)):
                        for ax3_1 in T.unroll(T.int64(1)):
                            for ax3_2 in T.vectorized(T.int64(8)):
                                with T.block("conv2d_nchw_update"):
                                    vax0 = T.axis.spatial(T.int64(1), T.int64(0))
                                    vax1 = T.axis.spatial(T.int64(4), ax1_0 * T.int64(4) + ax1_1)
                                    vax2 = T.axis.spatial(T.int64(8), ax0_ax2_ax3_0_fused)
                                    vax3 = T.axis.spatial(T.int64(8), ax3_1 * T.int64(8) + ax3_2)
                                    vrc = T.axis.reduce(T.int64(4), rc)
                                    vrh = T.axis.reduce(T.int64(3), rh)
                                    vrw = T.axis.reduce(T.int64(3), rw)
                                    T.reads(c2_local[vax0, vax1, vax2, vax3], pad_temp[vax0, vrc, vax2 + vrh, vax3 + vrw], w2[vax1, vrc, vrh, vrw])
                                    T.writes(c2_local[vax0, vax1, vax2, vax3])
                                    c2_local[vax0, vax1, vax2, vax3] = c2_local[vax0, vax1, vax2, vax3] + pad_temp[vax0, vrc, vax2 + vrh, vax3 + vrw] * w2[vax1, vrc, vrh, vrw]
                for ax0_1 in T.unroll(T.int64(4)):
                    for ax1_2 in T.vectorized(T.int64(8)):
                        with T.block("c2_local"):
                            v0 = T.axis.spatial(T.int64(1), T.int64(0))
                            v1 = T.axis.spatial(T.int64(4), ax1_0 * T.int64(4) + ax0_1)
                            v2 = T.axis.spatial(T.int64(8), ax0_ax2_ax3_0_fused)
                            v3 = T.axis.spatial(T.int64(8), ax1_2)
                            T.reads(c2_local[v0, v1, v2, v3])
                            T.writes(c2[v0, v1, v2, v3])
                            c2[v0, v1, v2, v3] = c2_local[v0, v1, v2, v3]
                for ax0_2 in T.unroll(T.int64(4)):
                    for ax1_3 in T.vectorized(T.int64(8)):
                        with T.block("relu"):
                            vax0 = T.axis.spatial(T.int64(1), T.int64(0))
                            vax1 = T.axis.spatial(T.int64(4), ax1_0 * T.int64(4) + ax0_2)
                            vax2 = T.axis.spatial(T.int64(8), ax0_ax2_ax3_0_fused)
                            vax3 = T.axis.spatial(T.int64(8), ax1_3)
                            T.reads(c2[T.int64(0), vax1, vax2, vax3], a[T.int64(0), vax1, vax2, vax3])
                            T.writes(relu[vax0, vax1, vax2, vax3])
                            relu[vax0, vax1, vax2, vax3] = T.max(c2[T.int64(0), vax1, vax2, vax3] + a[T.int64(0), vax1, vax2, vax3], T.float32(0.0))

