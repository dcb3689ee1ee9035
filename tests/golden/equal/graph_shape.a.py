# expect: differ
# diff: function "main"
# call_dps_packed's declared output shape (1, 128) against (1, 64).
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 128), dtype="float32")):
        with R.dataflow():
            gv = R.call_dps_packed("env.pool", (x,), out_sinfo=R.Tensor((1, 128), dtype="float32"))
            R.output(gv)
        return gv
