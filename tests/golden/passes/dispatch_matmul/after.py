from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 64, 128), dtype="float32"), w: R.Tensor((128, 256), dtype="float32"), s: R.Tensor((4, 8), dtype="float32"), ws: R.Tensor((8, 8), dtype="float32"), i: R.Tensor((128, 128), dtype="int32"), wb: R.Tensor((2, 128, 64), dtype="float32")) -> R.Tuple(R.Tensor((2, 64, 256), dtype="float32"), R.Tensor((4, 8), dtype="float32"), R.Tensor((128, 128), dtype="int32"), R.Tensor((2, 64, 64), dtype="float32")):
        with R.dataflow():
            big = R.call_dps_packed("env.matmul", (x, w), out_sinfo=R.Tensor((2, 64, 256), dtype="float32"))
            small: R.Tensor((4, 8), dtype="float32") = R.matmul(s, ws)
            ints: R.Tensor((128, 128), dtype="int32") = R.matmul(i, i)
            batched: R.Tensor((2, 64, 64), dtype="float32") = R.matmul(x, wb)
            R.output(big, small, ints, batched)
        return (big, small, ints, batched)

    @R.function
    def dyn(x: R.Tensor(("n", 16), dtype="float32"), w: R.Tensor((16, 4), dtype="float32")) -> R.Tensor(("n", 4), dtype="float32"):
        n = T.int64()
        with R.dataflow():
            y = R.call_dps_packed("env.matmul", (x, w), out_sinfo=R.Tensor((n, 4), dtype="float32"))
            R.output(y)
        return y
