# The default rules on what fusion made of a matmul and its bias add: a
# register tile with packed B and the add folded into the tile's write-back,
# sized for AVX2 with 4 threads; main is left as it is.
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
        T.func_attr({"global_symbol": "matmul", "tir.noalias": T.bool(True)})
        for ax0, ax1, k in T.grid(T.int64(16), T.int64(8), T.int64(32)):
            with T.block("matmul"):
                vax0, vax1, vk = T.axis.remap("SSR", [ax0, ax1, k])
                T.reads(x1[vax0, vk], x2[vk, vax1])
                T.writes(matmul[vax0, vax1])
                with T.init():
                    matmul[vax0, vax1] = T.float32(0.0)
                matmul[vax0, vax1] = matmul[vax0, vax1] + x1[vax0, vk] * x2[vk, vax1]

    @T.prim_func
    def add(x1: T.Buffer((T.int64(16), T.int64(8)), "float32"), x2: T.Buffer((T.int64(8),), "float32"), add: T.Buffer((T.int64(16), T.int64(8)), "float32")):
        T.func_attr({"global_symbol": "add", "tir.noalias": T.bool(True)})
        for ax0, ax1 in T.grid(T.int64(16), T.int64(8)):
            with T.block("add"):
                vax0, vax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x1[vax0, vax1], x2[vax1])
                T.writes(add[vax0, vax1])
                add[vax0, vax1] = x1[vax0, vax1] + x2[vax1]

    @T.prim_func
    def fused_matmul_add(x: T.Buffer((T.int64(16), T.int64(32)), "float32"), w: T.Buffer((T.int64(32), T.int64(8)), "float32"), b: T.Buffer((T.int64(8),), "float32"), add: T.Buffer((T.int64(16), T.int64(8)), "float32")):
        T.func_attr({"global_symbol": "fused_matmul_add", "tir.noalias": T.bool(True), "fused_ops": "matmul+add"})
        lv0 = T.alloc_buffer((T.int64(16), T.int64(8)))
        for ax0, ax1, k in T.grid(T.int64(16), T.int64(8), T.int64(32)):
            with T.block("matmul"):
                vax0, vax1, vk = T.axis.remap("SSR", [ax0, ax1, k])
                T.reads(x[vax0, vk], w[vk, vax1])
                T.writes(lv0[vax0, vax1])
                with T.init():
                    lv0[vax0, vax1] = T.float32(0.0)
                lv0[vax0, vax1] = lv0[vax0, vax1] + x[vax0, vk] * w[vk, vax1]
        for ax0, ax1 in T.grid(T.int64(16), T.int64(8)):
            with T.block("add"):
                vax0, vax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(lv0[vax0, vax1], b[vax1])
                T.writes(add[vax0, vax1])
                add[vax0, vax1] = lv0[vax0, vax1] + b[vax1]
