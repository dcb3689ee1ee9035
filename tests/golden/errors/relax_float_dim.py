# error: 11:30: unsupported shape expression
# a graph tensor dimension that is a float
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2.5), "float32")):
        return x
