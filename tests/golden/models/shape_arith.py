# sizes: n=7 m=3
# Shape arithmetic beyond a product: a concatenation makes (n + m, m), a
# reshape puts it in NCHW form, a 2x1 max pool with stride 2 halves the
# rows to (n + m - 2) // 2 + 1, a reshape flattens the result; every
# intermediate is allocated at run time from these expressions.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", "m"), "float32"), y: R.Tensor(("m", "m"), "float32")):
        n = T.int64()
        m = T.int64()
        with R.dataflow():
            lv0 = R.concat((x, y), axis=0)
            lv1 = R.reshape(lv0, R.shape([1, 1, n + m, m]))
            lv2 = R.nn.max_pool2d(lv1, pool_size=[2, 1], strides=[2, 1])
            lv3 = R.reshape(lv2, (((n + m - 2) // 2 + 1) * m,))
            gv = R.multiply(lv3, lv3)
            R.output(gv)
        return gv
