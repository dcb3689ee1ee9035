# The registry's complaint about an op call points at the binding that
# wrote it.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 784), "float32"), w: R.Tensor((100, 10), "float32")):
        with R.dataflow():
            lv = R.nn.relu(x)
            lv2 = R.matmul(lv, w)
            R.output(lv2)
        return lv2
