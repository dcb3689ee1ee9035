# error: 16:16: dataflow var
# a dataflow var (not in R.output) used after its block
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        with R.dataflow():
            lv = R.add(x, x)
            gv = R.nn.relu(lv)
            R.output(gv)
        return lv
