# error: 14:29: no function 'nope'
# call_tir of a function the module does not have
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        cls = Module
        with R.dataflow():
            gv = R.call_tir(cls.nope, (x,), out_sinfo=R.Tensor((4,), dtype="float32"))
            R.output(gv)
        return gv
