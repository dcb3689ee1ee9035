# An annotation that disagrees with the op's result is an error at the binding.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), "float32"), y: R.Tensor((4, 8), "float32")):
        with R.dataflow():
            lv = R.add(x, y)
            lv2: R.Tensor((4, 16), "float32") = R.multiply(lv, y)
            R.output(lv2)
        return lv2
