# Graph-level op calls before they are lowered: R.add, R.nn.relu, R.matmul
# with an attribute, constants (scalar and nested list), a tuple result with
# an R.Tuple / R.Shape return annotation, an annotated binding, and a call
# from one graph function to another.
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def dense(x: R.Tensor((2, 4), dtype="float32"), w: R.Tensor((4, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((2, 3), dtype="float32") = R.matmul(x, w, out_dtype="float32")
            gv: R.Tensor((2, 3), dtype="float32") = R.nn.relu(lv)
            R.output(gv)
        return gv

    @R.function
    def main(x: R.Tensor((2, 4), dtype="float32"), y: R.Tensor((2, 4), dtype="float32"),
             w: R.Tensor((4, 3), dtype="float32")) -> R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Shape([2, 3])):
        cls = Module
        with R.dataflow():
            lv0: R.Tensor((2, 4), dtype="float32") = R.add(x, y)
            lv1: R.Tensor((2, 4), dtype="float32") = R.nn.relu(lv0)
            lv2: R.Tensor((2, 3), dtype="float32") = cls.dense(lv1, w)
            lv3: R.Tensor((2, 3), dtype="float32") = R.add(lv2, R.const(1.5, "float32"))
            lv4: R.Tensor((2, 3), dtype="int32") = R.add(R.const([[1, 2, 3], [4, 5, 6]], "int32"), R.const(1, "int32"))
            gv = (lv3, R.shape([2, 3]))
            R.output(gv, lv4)
        return gv
