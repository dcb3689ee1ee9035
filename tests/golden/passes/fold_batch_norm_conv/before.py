# Inference batch norms with constant parameters: the one after a conv2d with a
# constant weight goes into the weight (W[o] * s[o], s = gamma / sqrt(var + eps))
# and leaves its shift (beta - mean * s) as a bias add; the one on an input
# becomes y * s + t.  The values were worked out by hand: s = (1, 0.4472136),
# t = (-0.75, -1) and s = (1, 1), t = (-0.5, 0.5).
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 3, 3), "float32"), y: R.Tensor((1, 2, 3, 3), "float32")) -> R.Tensor((1, 2, 3, 3), "float32"):
        with R.dataflow():
            c = R.nn.conv2d(x, R.const([[[[1.0]], [[2.0]]], [[[0.5]], [[-1.0]]]], "float32"))
            t = R.nn.batch_norm(c, R.const([2.0, 0.5], "float32"), R.const([0.25, -1.0], "float32"), R.const([1.0, 0.0], "float32"), R.const([3.0, 0.25], "float32"), axis=1, epsilon=1.0)
            r = R.nn.relu(t[0])
            u = R.nn.batch_norm(y, R.const([1.0, 4.0], "float32"), R.const([0.0, 2.0], "float32"), R.const([0.5, 1.5], "float32"), R.const([0.0, 15.0], "float32"), axis=1, epsilon=1.0)
            out = R.add(r, u[0])
            R.output(out)
        return out
