# A loop whose trip count is a size known only at run time, x's first dim
# as a value (R.dim_tensor): the body takes row n-1-i of x, a scan in
# reverse as the ONNX importer's recurrent layers and Scan build it, adds
# it to the carried sum and emits the sum.
# sizes: n=5
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Module:
    @R.function
    def body(i: R.Tensor((), "int64"), c: R.Tensor((), "bool"), s: R.Tensor((3,), "float32"),
             x: R.Tensor(("n", 3), "float32"), trips: R.Tensor((), "int64")):
        n = T.int64()
        with R.dataflow():
            last = R.subtract(trips, R.const(1, "int64"))
            t = R.subtract(last, i)
            row = R.take(x, t, axis=0)
            s2 = R.add(s, row)
            gv = (c, s2, s2)
            R.output(gv)
        return gv

    @R.function
    def main(s0: R.Tensor((3,), "float32"), x: R.Tensor(("n", 3), "float32")):
        n = T.int64()
        m = T.int64()
        cls = Module
        with R.dataflow():
            trips = R.dim_tensor(x, axis=0)
            lv = R.loop(cls.body, trips, R.const(True, "bool"), (s0,), (x, trips), count=[m],
                        scan_shapes=[[3]], scan_dtypes=["float32"])
            yf = lv[0]
            ys = lv[1]
            gv = (yf, ys)
            R.output(gv)
        return gv
