from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        cls = Module
        with R.dataflow():
            d: R.Tensor((4, 8), dtype="float32") = cls.fused_relu_exp_negative_add(x)
            R.output(d)
        return d

    @T.prim_func
    def relu(data: T.Buffer((T.int64(4), T.int64(8)), "float32"), relu: T.Buffer((T.int64(4), T.int64(8)), "float32")):
        T.func_attr({"global_symbol": "relu", "tir.noalias": T.bool(True)})
        for ax0, ax1 in T.grid(T.int64(4), T.int64(8)):
            with T.block("relu"):
                vax0, vax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(data[vax0, vax1])
                T.writes(relu[vax0, vax1])
                relu[vax0, vax1] = T.max(data[vax0, vax1], T.float32(0.0))

    @T.prim_func
    def exp(x: T.Buffer((T.int64(4), T.int64(8)), "float32"), exp: T.Buffer((T.int64(4), T.int64(8)), "float32")):
        T.func_attr({"global_symbol": "exp", "tir.noalias": T.bool(True)})
        for ax0, ax1 in T.grid(T.int64(4), T.int64(8)):
            with T.block("exp"):
                vax0, vax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x[vax0, vax1])
                T.writes(exp[vax0, vax1])
                exp[vax0, vax1] = T.exp(x[vax0, vax1])

    @T.prim_func
    def negative(x: T.Buffer((T.int64(4), T.int64(8)), "float32"), negative: T.Buffer((T.int64(4), T.int64(8)), "float32")):
        T.func_attr({"global_symbol": "negative", "tir.noalias": T.bool(True)})
        for ax0, ax1 in T.grid(T.int64(4), T.int64(8)):
            with T.block("negative"):
                vax0, vax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x[vax0, vax1])
                T.writes(negative[vax0, vax1])
                negative[vax0, vax1] = -x[vax0, vax1]

    @T.prim_func
    def add(x1: T.Buffer((T.int64(4), T.int64(8)), "float32"), x2: T.Buffer((T.int64(4), T.int64(8)), "float32"), add: T.Buffer((T.int64(4), T.int64(8)), "float32")):
        T.func_attr({"global_symbol": "add", "tir.noalias": T.bool(True)})
        for ax0, ax1 in T.grid(T.int64(4), T.int64(8)):
            with T.block("add"):
                vax0, vax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x1[vax0, vax1], x2[vax0, vax1])
                T.writes(add[vax0, vax1])
                add[vax0, vax1] = x1[vax0, vax1] + x2[vax0, vax1]

    @R.function
    def fused_relu_exp_negative_add(x: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        R.func_attr({"Primitive": 1})
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.relu, (x,), out_sinfo=R.Tensor((4, 8), dtype="float32"))
            b = R.call_tir(cls.exp, (a,), out_sinfo=R.Tensor((4, 8), dtype="float32"))
            c = R.call_tir(cls.negative, (a,), out_sinfo=R.Tensor((4, 8), dtype="float32"))
            d = R.call_tir(cls.add, (b, c), out_sinfo=R.Tensor((4, 8), dtype="float32"))
            R.output(d)
        return d
