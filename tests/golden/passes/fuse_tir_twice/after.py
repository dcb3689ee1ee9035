from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), y: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        cls = Module
        with R.dataflow():
            b = R.call_tir(cls.fused_add_add, (x, y), out_sinfo=R.Tensor((4, 8), dtype="float32"))
            e = R.call_tir(cls.fused_sum_subtract_exp, (b,), out_sinfo=R.Tensor((4, 8), dtype="float32"))
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

    @T.prim_func
    def fused_add_add(x: T.Buffer((T.int64(4), T.int64(8)), "float32"), y: T.Buffer((T.int64(4), T.int64(8)), "float32"), add: T.Buffer((T.int64(4), T.int64(8)), "float32")):
        T.func_attr({"global_symbol": "fused_add_add", "tir.noalias": T.bool(True), "fused_ops": "add+add"})
        a = T.alloc_buffer((T.int64(4), T.int64(8)))
        for ax0, ax1 in T.grid(T.int64(4), T.int64(8)):
            with T.block("add"):
                vax0, vax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x[vax0, vax1], y[vax0, vax1])
                T.writes(a[vax0, vax1])
                a[vax0, vax1] = x[vax0, vax1] + y[vax0, vax1]
        for ax0, ax1 in T.grid(T.int64(4), T.int64(8)):
            with T.block("add_1"):
                vax0, vax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a[vax0, vax1], y[vax0, vax1])
                T.writes(add[vax0, vax1])
                add[vax0, vax1] = a[vax0, vax1] + y[vax0, vax1]

    @T.prim_func
    def fused_sum_subtract_exp(b: T.Buffer((T.int64(4), T.int64(8)), "float32"), exp: T.Buffer((T.int64(4), T.int64(8)), "float32")):
        T.func_attr({"global_symbol": "fused_sum_subtract_exp", "tir.noalias": T.bool(True), "fused_ops": "sum+subtract+exp"})
        c = T.alloc_buffer((T.int64(4), T.int64(1)))
        d = T.alloc_buffer((T.int64(4), T.int64(8)))
        for ax0, ax1, r0 in T.grid(T.int64(4), T.int64(1), T.int64(8)):
            with T.block("sum"):
                vax0, vax1, vr0 = T.axis.remap("SSR", [ax0, ax1, r0])
                T.reads(b[vax0, vr0])
                T.writes(c[vax0, vax1])
                with T.init():
                    c[vax0, vax1] = T.float32(0.0)
                c[vax0, vax1] = c[vax0, vax1] + b[vax0, vr0]
        for ax0, ax1 in T.grid(T.int64(4), T.int64(8)):
            with T.block("subtract"):
                vax0, vax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(b[vax0, vax1], c[vax0, T.int64(0)])
                T.writes(d[vax0, vax1])
                d[vax0, vax1] = b[vax0, vax1] - c[vax0, T.int64(0)]
        for ax0, ax1 in T.grid(T.int64(4), T.int64(8)):
            with T.block("exp"):
                vax0, vax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(d[vax0, vax1])
                T.writes(exp[vax0, vax1])
                exp[vax0, vax1] = T.exp(d[vax0, vax1])
