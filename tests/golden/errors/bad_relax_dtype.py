# error: 11:36: unknown dtype 'flot32'
# a misspelled dtype in a graph signature
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 784), "flot32")):
        return x
