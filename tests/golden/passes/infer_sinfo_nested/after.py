from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), w: R.Tensor((16, 8), dtype="float32"), b: R.Tensor((16,), dtype="float32")) -> R.Tensor((4, 32), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((8, 16), dtype="float32") = R.permute_dims(w)
            lv_1: R.Tensor((4, 16), dtype="float32") = R.matmul(x, lv)
            y: R.Tensor((4, 16), dtype="float32") = R.add(lv_1, b)
            lv_2: R.Tensor((4, 16), dtype="float32") = R.nn.relu(y)
            z: R.Tensor((4, 32), dtype="float32") = R.concat((y, lv_2), axis=1)
            R.output(z)
        return z
