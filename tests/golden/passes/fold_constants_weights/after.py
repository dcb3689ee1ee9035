from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 2), dtype="float32"):
        with R.dataflow():
            m: R.Tensor((2, 2), dtype="float32") = R.matmul(x, R.const([[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]], "float32"))
            out: R.Tensor((2, 2), dtype="float32") = R.add(m, R.const([1.5, 2.5], "float32"))
            R.output(out)
        return out
