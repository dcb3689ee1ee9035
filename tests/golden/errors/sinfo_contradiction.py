# error: 18:17: contradicts
# an annotation that contradicts call_tir's out_sinfo
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class Module:
    @T.prim_func
    def g(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        B[0] = A[0]

    @R.function
    def main(x: R.Tensor((4,), "float32")):
        cls = Module
        with R.dataflow():
            gv: R.Tensor((8,), dtype="float32") = R.call_tir(cls.g, (x,), out_sinfo=R.Tensor((4,), dtype="float32"))
            R.output(gv)
        return gv
