# Work on constants at compile time: the transpose of a weight and an add of two
# constants are evaluated (by the interpreter), and a reshape to the shape it
# already has goes.
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 2), "float32"):
        with R.dataflow():
            wt = R.permute_dims(R.const([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], "float32"))
            m = R.matmul(x, wt)
            s = R.reshape(m, (2, 2))
            b = R.add(R.const([1.0, 2.0], "float32"), R.const([0.5, 0.5], "float32"))
            out = R.add(s, b)
            R.output(out)
        return out
