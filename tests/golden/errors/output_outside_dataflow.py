# error: 13:9: outside a dataflow block
# R.output outside a dataflow block
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        gv = R.add(x, x)
        R.output(gv)
        return gv
