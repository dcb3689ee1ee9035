# The digits example's network: a 16x16 glyph (flattened to 256 values) ->
# 64 hidden units with relu -> 10 class probabilities.  The batch size n is
# symbolic, so one compiled model classifies any number of images per call.
# The first layer is spelled as a matmul and a bias add, the second as
# R.nn.linear (whose weight is [out, in]); the graph passes turn each op into
# a tensor program.  Weights come from weights.npz (written by train.c) by
# parameter name: `mlcc build model.py --params weights.npz` binds them.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 256), "float32"), w0: R.Tensor((256, 64), "float32"),
             b0: R.Tensor((64,), "float32"), w1: R.Tensor((10, 64), "float32"),
             b1: R.Tensor((10,), "float32")) -> R.Tensor(("n", 10), "float32"):
        with R.dataflow():
            lv0 = R.matmul(x, w0)
            lv1 = R.add(lv0, b0)
            lv2 = R.nn.relu(lv1)
            lv3 = R.nn.linear(lv2, w1, b1)
            probs = R.nn.softmax(lv3, axis=-1)
            R.output(probs)
        return probs
