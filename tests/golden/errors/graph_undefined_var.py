# error: 13:27: undefined name 'z'
# a graph binding that uses a name never bound
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        with R.dataflow():
            gv = R.add(x, z)
            R.output(gv)
        return gv
