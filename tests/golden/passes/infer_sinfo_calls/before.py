# Op calls get the registry's struct info (symbolic dims included), a call
# of a graph function gets the callee's return (the callee written after its
# caller), tuples and items follow, an annotation that says more is kept.
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 8), "float32"), w: R.Tensor((8, 3), "float32")):
        n = T.int64()
        cls = Module
        with R.dataflow():
            a = R.matmul(x, w)
            b = cls.act(a)
            t = (a, b)
            c = t[1]
            d: R.Tensor((n, 3), "float32") = R.call_packed("env.copy", c)
            R.output(d, t)
        return (d, t)

    @R.function
    def act(y: R.Tensor(("m", 3), "float32")):
        z = R.nn.relu(y)
        return z
