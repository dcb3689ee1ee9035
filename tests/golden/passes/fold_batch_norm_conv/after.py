from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 3, 3), dtype="float32"), y: R.Tensor((1, 2, 3, 3), dtype="float32")) -> R.Tensor((1, 2, 3, 3), dtype="float32"):
        with R.dataflow():
            c: R.Tensor((1, 2, 3, 3), dtype="float32") = R.nn.conv2d(x, R.const([[[[1.0]], [[2.0]]], [[[0.2236068]], [[-0.4472136]]]], "float32"))
            t_out: R.Tensor((1, 2, 3, 3), dtype="float32") = R.add(c, R.const([[[-0.75]], [[-1.0]]], "float32"))
            r: R.Tensor((1, 2, 3, 3), dtype="float32") = R.nn.relu(t_out)
            u_scaled: R.Tensor((1, 2, 3, 3), dtype="float32") = R.multiply(y, R.const([[[1.0]], [[1.0]]], "float32"))
            u_out: R.Tensor((1, 2, 3, 3), dtype="float32") = R.add(u_scaled, R.const([[[-0.5]], [[0.5]]], "float32"))
            out: R.Tensor((1, 2, 3, 3), dtype="float32") = R.add(r, u_out)
            R.output(out)
        return out
