# Library dispatch: float32 products with a weight-shaped (2-D) right
# operand and at least 64^3 multiply-adds, or a symbolic dim, become calls of
# the runtime's BLAS-backed env.matmul; small, integer and batched-weight
# products stay ops (and are legalized to generated kernels later).
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 64, 128), "float32"), w: R.Tensor((128, 256), "float32"),
             s: R.Tensor((4, 8), "float32"), ws: R.Tensor((8, 8), "float32"),
             i: R.Tensor((128, 128), "int32"), wb: R.Tensor((2, 128, 64), "float32")):
        with R.dataflow():
            big = R.matmul(x, w)
            small = R.matmul(s, ws)
            ints = R.matmul(i, i)
            batched = R.matmul(x, wb)
            R.output(big, small, ints, batched)
        return (big, small, ints, batched)

    @R.function
    def dyn(x: R.Tensor(("n", 16), "float32"), w: R.Tensor((16, 4), "float32")):
        with R.dataflow():
            y = R.matmul(x, w)
            R.output(y)
        return y
