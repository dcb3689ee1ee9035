from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((16, 32), dtype="float32"), w: R.Tensor((32, 8), dtype="float32"), b: R.Tensor((8,), dtype="float32")) -> R.Tensor((16, 8), dtype="float32"):
        cls = Module
        with R.dataflow():
            out = R.call_tir(cls.fused_matmul_add, (x, w, b), out_sinfo=R.Tensor((16, 8), dtype="float32"))
            R.output(out)
        return out

    @T.prim_func
    def matmul(x1: T.Buffer((T.int64(16), T.int64(32)), "float32"), x2: T.Buffer((T.int64(32), T.int64(8)), "float32"), matmul: T.Buffer((T.int64(16), T.int64(8)), "float32")):
        T.func_attr({"global_symbol": "matmul", "tir.noalias": T.bool(True), "schedule": "default rules (avx2)"})
        matmul_local = T.alloc_buffer((T.int64(16), T.int64(8)), scope="local")
        for ax1_0, ax0_0 in T.grid(T.int64(1), T.int64(2)):
            for ax0_1_init in T.unroll(T.int64(8)):
                for ax1_1_init in T.unroll(T.int64(1)):
                    for ax1_2_init in T.vectorized(T.int64(8)):
                        with T.block("matmul_init"):
                            vax0 = T.axis.spatial(T.int64(16), ax0_0 * T.int64(8) + ax0_1_init)
                            vax1 = T.axis.spatial(T.int64(8), ax1_0 * T.int64(8) + ax1_1_init * T.int64(8) + ax1_2_init)
                            T.reads()
                            T.writes(matmul_local[vax0, vax1])
                            matmul_local[vax0, vax1] = T.float32(0.0)
            for k in range(T.int64(32)):
                for ax0_1 in T.unroll(T.int64(8)):
                    for ax1_1 in T.unroll(T.int64(1)):
                        for ax1_2 in T.vectorized(T.int64(8)):
                            with T.block("matmul_update"):
                                vax0 = T.axis.spatial(T.int64(16), ax0_0 * T.int64(8) + ax0_1)
                                vax1 = T.axis.spatial(T.int64(8), ax1_0 * T.int64(8) + ax1_1 * T.int64(8) + ax1_2)
                                vk = T.axis.reduce(T.int64(32), k)
                                T.reads(matmul_local[vax0, vax1], x1[vax0, vk], x2[vk, vax1])
                                T.writes(matmul_local[vax0, vax1])
                                matmul_local[vax0, vax1] = matmul_local[vax0, vax1] + x1[vax0, vk] * x2[vk, vax1]
            for ax0_2 in T.unroll(T.int64(8)):
                for ax1_3 in T.vectorized(T.int64(8)):
                    with T.block("matmul_local"):
                        v0 = T.axis.spatial(T.int64(16), ax0_0 * T.int64(8) + ax0_2)
                        v1 = T.axis.spatial(T.int64(8), ax1_0 * T.int64(8) + ax1_3)
                        T.reads(matmul_local[v0, v1])
                        T.writes(matmul[v0, v1])
                        matmul[v0, v1] = matmul_local[v0, v1]

    @T.prim_func
    def add(x1: T.Buffer((T.int64(16), T.int64(8)), "float32"), x2: T.Buffer((T.int64(8),), "float32"), add: T.Buffer((T.int64(16), T.int64(8)), "float32")):
        T.func_attr({"global_symbol": "add", "tir.noalias": T.bool(True), "schedule": "default rules (avx2)"})
        for ax0, ax1_0 in T.grid(T.int64(16), T.int64(1)):
            for ax1_1 in T.vectorized(T.int64(8)):
                with T.block("add"):
                    vax0 = T.axis.spatial(T.int64(16), ax0)
                    vax1 = T.axis.spatial(T.int64(8), ax1_0 * T.int64(8) + ax1_1)
                    T.reads(x1[vax0, vax1], x2[vax1])
                    T.writes(add[vax0, vax1])
                    add[vax0, vax1] = x1[vax0, vax1] + x2[vax1]

    @T.prim_func
    def fused_matmul_add(x: T.Buffer((T.int64(16), T.int64(32)), "float32"), w: T.Buffer((T.int64(32), T.int64(8)), "float32"), b: T.Buffer((T.int64(8),), "float32"), add: T.Buffer((T.int64(16), T.int64(8)), "float32")):
        T.func_attr({"global_symbol": "fused_matmul_add", "tir.noalias": T.bool(True), "fused_ops": "matmul+add", "schedule": "default rules (avx2)"})
        lv0_local = T.alloc_buffer((T.int64(16), T.int64(8)), scope="local")
        for ax1_0, ax0_0 in T.grid(T.int64(1), T.int64(2)):
            for ax0_1_init in T.unroll(T.int64(8)):
                for ax1_1_init in T.unroll(T.int64(1)):
                    for ax1_2_init in T.vectorized(T.int64(8)):
                        with T.block("matmul_init"):
                            vax0 = T.axis.spatial(T.int64(16), ax0_0 * T.int64(8) + ax0_1_init)
                            vax1 = T.axis.spatial(T.int64(8), ax1_0 * T.int64(8) + ax1_1_init * T.int64(8) + ax1_2_init)
                            T.reads()
                            T.writes(lv0_local[vax0, vax1])
                            lv0_local[vax0, vax1] = T.float32(0.0)
            for k in range(T.int64(32)):
                for ax0_1 in T.unroll(T.int64(8)):
                    for ax1_1 in T.unroll(T.int64(1)):
                        for ax1_2 in T.vectorized(T.int64(8)):
                            with T.block("matmul_update"):
                                vax0 = T.axis.spatial(T.int64(16), ax0_0 * T.int64(8) + ax0_1)
                                vax1 = T.axis.spatial(T.int64(8), ax1_0 * T.int64(8) + ax1_1 * T.int64(8) + ax1_2)
                                vk = T.axis.reduce(T.int64(32), k)
                                T.reads(lv0_local[vax0, vax1], x[vax0, vk], w[vk, vax1])
                                T.writes(lv0_local[vax0, vax1])
                                lv0_local[vax0, vax1] = lv0_local[vax0, vax1] + x[vax0, vk] * w[vk, vax1]
            for ax0_2 in T.unroll(T.int64(8)):
                for ax1_3 in T.vectorized(T.int64(8)):
                    with T.block("lv0_local"):
                        v0 = T.axis.spatial(T.int64(16), ax0_0 * T.int64(8) + ax0_2)
                        v1 = T.axis.spatial(T.int64(8), ax1_0 * T.int64(8) + ax1_3)
                        T.reads(lv0_local[v0, v1], b[v1])
                        T.writes(add[v0, v1])
                        add[v0, v1] = lv0_local[v0, v1] + b[v1]

