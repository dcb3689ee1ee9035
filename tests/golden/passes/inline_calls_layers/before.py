# main calls layer twice; layer's symbolic batch b becomes main's n at each
# call, and its bindings are copied with fresh vars
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Module:
    @R.function
    def layer(x: R.Tensor(("b", 8), "float32"), w: R.Tensor((8, 8), "float32")) -> R.Tensor(("b", 8), "float32"):
        b = T.int64()
        with R.dataflow():
            lv0 = R.matmul(x, w)
            lv1 = R.reshape(lv0, R.shape([b * 8]))
            lv2 = R.nn.relu(lv1)
            gv = R.reshape(lv2, R.shape([b, 8]))
            R.output(gv)
        return gv

    @R.function
    def main(x: R.Tensor(("n", 8), "float32"), w: R.Tensor((8, 8), "float32")) -> R.Tensor(("n", 8), "float32"):
        cls = Module
        with R.dataflow():
            h = cls.layer(x, w)
            gv = cls.layer(h, w)
            R.output(gv)
        return gv
