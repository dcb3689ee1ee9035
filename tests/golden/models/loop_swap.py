# R.loop whose body passes one carried value on as the other (a, b) ->
# (b, a + b), so the executor must not overwrite a before it is read, and
# whose scan element is a carried value as it came in; the condition is
# passed on unchanged, so the trip count alone stops the loop.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Module:
    @R.function
    def body(i: R.Tensor((), "int64"), c: R.Tensor((), "bool"), a: R.Tensor((2, 3), "float32"),
             b: R.Tensor((2, 3), "float32")):
        with R.dataflow():
            s = R.add(a, b)
            gv = (c, b, s, a)
            R.output(gv)
        return gv

    @R.function
    def main(a0: R.Tensor((2, 3), "float32"), b0: R.Tensor((2, 3), "float32")):
        k = T.int64()
        cls = Module
        with R.dataflow():
            lv = R.loop(cls.body, R.const(5, "int64"), R.const(True, "bool"), (a0, b0), (), count=[k],
                        scan_shapes=[[2, 3]], scan_dtypes=["float32"])
            gv = (lv[0], lv[1], lv[2])
            R.output(gv)
        return gv
