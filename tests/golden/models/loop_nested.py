# R.loop inside a loop body: each of the 4 outer iterations runs an inner
# loop of 3 iterations adding x (read from main through both bodies) to the
# state, then halves it and emits it; the inner loop has no scan output.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Module:
    @R.function
    def inner(i: R.Tensor((), "int64"), c: R.Tensor((), "bool"), a: R.Tensor((3,), "float32"),
              x: R.Tensor((3,), "float32")):
        with R.dataflow():
            a2 = R.add(a, x)
            gv = (c, a2)
            R.output(gv)
        return gv

    @R.function
    def outer(i: R.Tensor((), "int64"), c: R.Tensor((), "bool"), s: R.Tensor((3,), "float32"),
              x: R.Tensor((3,), "float32")):
        m = T.int64()
        cls = Module
        with R.dataflow():
            lv = R.loop(cls.inner, R.const(3, "int64"), R.const(True, "bool"), (s,), (x,), count=[m])
            s2 = R.multiply(lv[0], R.const(0.5, "float32"))
            gv = (c, s2, s2)
            R.output(gv)
        return gv

    @R.function
    def main(s0: R.Tensor((3,), "float32"), x: R.Tensor((3,), "float32")):
        n = T.int64()
        cls = Module
        with R.dataflow():
            lv = R.loop(cls.outer, R.const(4, "int64"), R.const(True, "bool"), (s0,), (x,), count=[n],
                        scan_shapes=[[3]], scan_dtypes=["float32"])
            gv = (lv[0], lv[1])
            R.output(gv)
        return gv
