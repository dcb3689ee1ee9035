# error: 11:17: 'R.Tensr'
# a misspelled struct info in a graph signature
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensr((4,), "float32")):
        return x
