from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def f(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        with R.dataflow():
            gv = cls.g(x)
            R.output(gv)
        return gv

    @R.function
    def g(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        with R.dataflow():
            lv = R.nn.relu(x)
            gv = cls.f(lv)
            R.output(gv)
        return gv
