from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), y: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        cls = Module
        with R.dataflow():
            b: R.Tensor((4, 8), dtype="float32") = cls.fused_add_add(x, y)
            e: R.Tensor((4, 8), dtype="float32") = cls.fused_sum_subtract_exp(b)
            R.output(e)
        return e

    @T.prim_func
    def add(x1: T.Buffer((T.int64(4), T.int64(8)), "float32"), x2: T.Buffer((T.int64(4), T.int64(8)), "float32"), add: T.Buffer((T.int64(4), T.int64(8)), "float32")):
        T.func_attr({"global_symbol": "add", "tir.noalias": T.bool(True)})
        for ax0, ax1 in T.grid(T.int64(4), T.int64(8)):
            with T.block("add"):
                vax0, vax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x1[vax0, vax1], x2[vax0, vax1])
                T.writes(add[vax0, vax1])
                add[vax0, vax1] = x1[vax0, vax1] + x2[vax0, vax1]

    @T.prim_func
    def sum(x: T.Buffer((T.int64(4), T.int64(8)), "float32"), sum: T.Buffer((T.int64(4), T.int64(1)), "float32")):
        T.func_attr({"global_symbol": "sum", "tir.noalias": T.bool(True)})
        for ax0, ax1, r0 in T.grid(T.int64(4), T.int64(1), T.int64(8)):
            with T.block("sum"):
                vax0, vax1, vr0 = T.axis.remap("SSR", [ax0, ax1, r0])
                T.reads(x[vax0, vr0])
                T.writes(sum[vax0, vax1])
                with T.init():
                    sum[vax0, vax1] = T.float32(0.0)
                sum[vax0, vax1] = sum[vax0, vax1] + x[vax0, vr0]

    @T.prim_func
    def subtract(x1: T.Buffer((T.int64(4), T.int64(8)), "float32"), x2: T.Buffer((T.int64(4), T.int64(1)), "float32"), subtract: T.Buffer((T.int64(4), T.int64(8)), "float32")):
        T.func_attr({"global_symbol": "subtract", "tir.noalias": T.bool(True)})
        for ax0, ax1 in T.grid(T.int64(4), T.int64(8)):
            with T.block("subtract"):
                vax0, vax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x1[vax0, vax1], x2[vax0, T.int64(0)])
                T.writes(subtract[vax0, vax1])
                subtract[vax0, vax1] = x1[vax0, vax1] - x2[vax0, T.int64(0)]

    @T.prim_func
    def exp(x: T.Buffer((T.int64(4), T.int64(8)), "float32"), exp: T.Buffer((T.int64(4), T.int64(8)), "float32")):
        T.func_attr({"global_symbol": "exp", "tir.noalias": T.bool(True)})
        for ax0, ax1 in T.grid(T.int64(4), T.int64(8)):
            with T.block("exp"):
                vax0, vax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x[vax0, vax1])
                T.writes(exp[vax0, vax1])
                exp[vax0, vax1] = T.exp(x[vax0, vax1])

    @R.function
    def fused_add_add(x: R.Tensor((4, 8), dtype="float32"), y: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        R.func_attr({"Primitive": 1})
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.add, (x, y), out_sinfo=R.Tensor((4, 8), dtype="float32"))
            b = R.call_tir(cls.add, (a, y), out_sinfo=R.Tensor((4, 8), dtype="float32"))
            R.output(b)
        return b

    @R.function
    def fused_sum_subtract_exp(b: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        R.func_attr({"Primitive": 1})
        cls = Module
        with R.dataflow():
            c = R.call_tir(cls.sum, (b,), out_sinfo=R.Tensor((4, 1), dtype="float32"))
            d = R.call_tir(cls.subtract, (b, c), out_sinfo=R.Tensor((4, 8), dtype="float32"))
            e = R.call_tir(cls.exp, (d,), out_sinfo=R.Tensor((4, 8), dtype="float32"))
            R.output(e)
        return e
