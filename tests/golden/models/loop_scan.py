# A loop as ONNX's Loop runs it (R.loop): the body adds x, read from main,
# times the iteration number to the carried y and emits each new y; it
# stops itself after iteration 3 of at most 10, so the scan output has 4
# rows, a count known only when the loop has run.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Module:
    @R.function
    def body(i: R.Tensor((), "int64"), c: R.Tensor((), "bool"), y: R.Tensor((4,), "float32"),
             x: R.Tensor((4,), "float32")):
        with R.dataflow():
            fi = R.astype(i, "float32")
            xi = R.multiply(x, fi)
            y2 = R.add(y, xi)
            c2 = R.less(i, R.const(3, "int64"))
            gv = (c2, y2, R.nn.relu(y2))
            R.output(gv)
        return gv

    @R.function
    def main(y0: R.Tensor((4,), "float32"), x: R.Tensor((4,), "float32")):
        n = T.int64()
        cls = Module
        with R.dataflow():
            lv = R.loop(cls.body, R.const(10, "int64"), R.const(True, "bool"), (y0,), (x,), count=[n],
                        scan_shapes=[[4]], scan_dtypes=["float32"])
            yf = lv[0]
            ys = lv[1]
            s = R.sum(ys, axis=[0])
            gv = (yf, ys, s)
            R.output(gv)
        return gv
