# A negative entry in a positional shape tuple of an op call (-1: inferred).
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), dtype="float32")):
        with R.dataflow():
            lv = R.reshape(x, (-1, 4))
            R.output(lv)
        return lv
