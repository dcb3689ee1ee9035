# sizes: n=3 m=5
# The essay's example of shape expressions: symbolic n and m flow through
# an add, a reshape to (n * m,) and an exp, and the result goes through a
# library function called with R.call_packed (its struct info says it
# returns a tensor of n * m elements, which the executor allocates).
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", "m"), "float32"), y: R.Tensor(("n", "m"), "float32")):
        n = T.int64()
        m = T.int64()
        with R.dataflow():
            lv0 = R.add(x, y)
            lv1 = R.reshape(lv0, R.shape([n * m]))
            lv2 = R.exp(lv1)
            R.output(lv2)
        out = R.call_packed("test.double", lv2, sinfo_args=R.Tensor((n * m,), "float32"))
        return out
