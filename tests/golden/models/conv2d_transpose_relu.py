# A 2x2 stride-2 transposed conv (a detection head's upsampling) with its bias
# and relu: legalized by phases, fused, and tiled by the transposed conv's
# default rule (output phases x vectors along the row).
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 8, 6, 8), "float32"), w: R.Tensor((8, 16, 2, 2), "float32"),
             b: R.Tensor((1, 16, 1, 1), "float32")) -> R.Tensor((1, 16, 12, 16), "float32"):
        with R.dataflow():
            lv0 = R.nn.conv2d_transpose(x, w, strides=[2, 2])
            lv1 = R.add(lv0, b)
            gv = R.nn.relu(lv1)
            R.output(gv)
        return gv
