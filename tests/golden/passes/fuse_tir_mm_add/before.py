# The course's example: a matmul and the bias add after it are fused into one
# function, fused_matmul_add (the add is the matmul's elementwise epilogue).
# fuse_tir: each function of the group becomes one prim func.
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((16, 32), dtype="float32"), w: R.Tensor((32, 8), dtype="float32"), b: R.Tensor((8,), dtype="float32")) -> R.Tensor((16, 8), dtype="float32"):
        cls = Module
        with R.dataflow():
            out: R.Tensor((16, 8), dtype="float32") = cls.fused_matmul_add(x, w, b)
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

    @R.function
    def fused_matmul_add(x: R.Tensor((16, 32), dtype="float32"), w: R.Tensor((32, 8), dtype="float32"), b: R.Tensor((8,), dtype="float32")) -> R.Tensor((16, 8), dtype="float32"):
        R.func_attr({"Primitive": 1})
        cls = Module
        with R.dataflow():
            lv0 = R.call_tir(cls.matmul, (x, w), out_sinfo=R.Tensor((16, 8), dtype="float32"))
            out = R.call_tir(cls.add, (lv0, b), out_sinfo=R.Tensor((16, 8), dtype="float32"))
            R.output(out)
        return out
