# The two-layer MLP through every graph pass: the first product (4x784 by
# 784x128, big enough) is dispatched to the runtime's env.matmul, the second
# (4x128 by 128x10) and the other ops are legalized to prim funcs and fused
# into one (the bias and relu of the first layer cannot join the library
# call before them, so they join the matmul after them, with its bias),
# allocations are made explicit and the intermediates planned into one
# storage.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 784), "float32"), w0: R.Tensor((784, 128), "float32"),
             b0: R.Tensor((128,), "float32"), w1: R.Tensor((128, 10), "float32"),
             b1: R.Tensor((10,), "float32")) -> R.Tensor((4, 10), "float32"):
        with R.dataflow():
            lv0 = R.matmul(x, w0)
            lv1 = R.add(lv0, b0)
            lv2 = R.nn.relu(lv1)
            lv3 = R.matmul(lv2, w1)
            out = R.add(lv3, b1)
            R.output(out)
        return out
