# Calls nested in another call's arguments (and in a tuple argument) are
# bound first, each to a var of its own, in evaluation order.
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), "float32"), w: R.Tensor((16, 8), "float32"), b: R.Tensor((16,), "float32")):
        with R.dataflow():
            y = R.add(R.matmul(x, R.permute_dims(w)), b)
            z = R.concat((y, R.nn.relu(y)), axis=1)
            R.output(z)
        return z
