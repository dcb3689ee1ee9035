from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def body(i: R.Tensor((), dtype="int64"), c: R.Tensor((), dtype="bool"), a: R.Tensor((2, 3), dtype="float32"), b: R.Tensor((2, 3), dtype="float32")) -> R.Tuple(R.Tensor((), dtype="bool"), R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="float32")):
        with R.dataflow():
            s: R.Tensor((2, 3), dtype="float32") = R.add(a, b)
            gv = (c, b, s, a)
            R.output(gv)
        return gv

    @R.function
    def main(a0: R.Tensor((2, 3), dtype="float32"), b0: R.Tensor((2, 3), dtype="float32")) -> R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="float32"), R.Tensor(("k", 2, 3), dtype="float32")):
        k = T.int64()
        cls = Module
        with R.dataflow():
            lv: R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="float32"), R.Tensor((k, 2, 3), dtype="float32")) = R.loop(cls.body, R.const(5, "int64"), R.const(True, "bool"), (a0, b0), (), count=[k], scan_shapes=[[2, 3]], scan_dtypes=["float32"])
            gv = (lv[0], lv[1], lv[2])
            R.output(gv)
        return gv
