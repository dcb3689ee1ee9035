# expect: equal
# Module functions are matched by name: the same module with its functions
# in another order is the same module.
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class Module:
    @T.prim_func
    def exp0(x: T.Buffer((8, 8), "float32"), y: T.Buffer((8, 8), "float32")):
        for i, j in T.grid(8, 8):
            with T.block("y"):
                vi, vj = T.axis.remap("SS", [i, j])
                y[vi, vj] = T.exp(x[vi, vj])

    @T.prim_func
    def neg0(x: T.Buffer((8, 8), "float32"), y: T.Buffer((8, 8), "float32")):
        for i, j in T.grid(8, 8):
            with T.block("y"):
                vi, vj = T.axis.remap("SS", [i, j])
                y[vi, vj] = T.float32(0) - x[vi, vj]

    @R.function
    def main(x: R.Tensor((8, 8), dtype="float32")) -> R.Tensor((8, 8), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.exp0, (x,), out_sinfo=R.Tensor((8, 8), dtype="float32"))
            gv = R.call_tir(cls.neg0, (lv,), out_sinfo=R.Tensor((8, 8), dtype="float32"))
            R.output(gv)
        return gv
