from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 8), dtype="float32"), w: R.Tensor((8, 3), dtype="float32")) -> R.Tuple(R.Tensor(("n", 3), dtype="float32"), R.Tuple(R.Tensor(("n", 3), dtype="float32"), R.Tensor(("n", 3), dtype="float32"))):
        n = T.int64()
        cls = Module
        with R.dataflow():
            a: R.Tensor((n, 3), dtype="float32") = R.matmul(x, w)
            b: R.Tensor((n, 3), dtype="float32") = cls.act(a)
            t = (a, b)
            c = t[1]
            d: R.Tensor((n, 3), dtype="float32") = R.call_packed("env.copy", c)
            R.output(t, d)
        return (d, t)

    @R.function
    def act(y: R.Tensor(("m", 3), dtype="float32")) -> R.Tensor(("m", 3), dtype="float32"):
        m = T.int64()
        z: R.Tensor((m, 3), dtype="float32") = R.nn.relu(y)
        return z

