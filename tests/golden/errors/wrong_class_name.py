# error: 12:15: undefined name 'Other'
# cls bound to a name that is not the module
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        cls = Other
        return x
