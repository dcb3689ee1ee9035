from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def layer(x: R.Tensor(("b", 8), dtype="float32"), w: R.Tensor((8, 8), dtype="float32")) -> R.Tensor(("b", 8), dtype="float32"):
        b = T.int64()
        with R.dataflow():
            lv0: R.Tensor((b, 8), dtype="float32") = R.matmul(x, w)
            lv1: R.Tensor((b * 8,), dtype="float32") = R.reshape(lv0, R.shape([b * 8]))
            lv2: R.Tensor((b * 8,), dtype="float32") = R.nn.relu(lv1)
            gv: R.Tensor((b, 8), dtype="float32") = R.reshape(lv2, R.shape([b, 8]))
            R.output(gv)
        return gv

    @R.function
    def main(x: R.Tensor(("n", 8), dtype="float32"), w: R.Tensor((8, 8), dtype="float32")) -> R.Tensor(("n", 8), dtype="float32"):
        n = T.int64()
        with R.dataflow():
            lv0: R.Tensor((n, 8), dtype="float32") = R.matmul(x, w)
            lv1: R.Tensor((n * 8,), dtype="float32") = R.reshape(lv0, R.shape([n * 8]))
            lv2: R.Tensor((n * 8,), dtype="float32") = R.nn.relu(lv1)
            gv_1: R.Tensor((n, 8), dtype="float32") = R.reshape(lv2, R.shape([n, 8]))
            h = gv_1
            lv0_1: R.Tensor((n, 8), dtype="float32") = R.matmul(h, w)
            lv1_1: R.Tensor((n * 8,), dtype="float32") = R.reshape(lv0_1, R.shape([n * 8]))
            lv2_1: R.Tensor((n * 8,), dtype="float32") = R.nn.relu(lv1_1)
            gv_2: R.Tensor((n, 8), dtype="float32") = R.reshape(lv2_1, R.shape([n, 8]))
            gv = gv_2
            R.output(gv)
        return gv
