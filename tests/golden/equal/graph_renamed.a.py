# expect: equal
# Graph functions with renamed params, bindings and symbolic dims ("n"
# against "batch") are equal: all of them are bound names.
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 16), dtype="float32"), y: R.Tensor(("n", 16), dtype="float32")) -> R.Tensor(("n", 16), dtype="float32"):
        n = T.int64()
        with R.dataflow():
            lv0 = R.add(x, y)
            lv1: R.Tensor((n, 16), dtype="float32") = R.nn.relu(lv0)
            gv = R.call_dps_packed("env.scale", (lv1,), out_sinfo=R.Tensor((n, 16), dtype="float32"))
            R.output(gv)
        return gv
