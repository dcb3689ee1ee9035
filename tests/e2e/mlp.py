# The end-to-end test's network with a fixed batch of 4: the first layer
# through ops (legalized to prim funcs), the second through the runtime's
# extern env.linear.  Weights are bound from weights.npz by name.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), "float32"), w0: R.Tensor((8, 16), "float32"),
             b0: R.Tensor((16,), "float32"), w1: R.Tensor((4, 16), "float32"),
             b1: R.Tensor((4,), "float32")) -> R.Tensor((4, 4), "float32"):
        with R.dataflow():
            lv0 = R.matmul(x, w0)
            lv1 = R.add(lv0, b0)
            lv2 = R.nn.relu(lv1)
            out = R.call_dps_packed("env.linear", (lv2, w1, b1), out_sinfo=R.Tensor((4, 4), "float32"))
            R.output(out)
        return out
