# The MLP with its linear layers handed to a library function ("env.linear",
# found in the runtime's registry) through call_dps_packed, while ReLU stays a
# tensor program called with call_tir.
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class Module:
    @T.prim_func
    def relu0(x: T.Buffer((1, 128), "float32"), y: T.Buffer((1, 128), "float32")):
        T.func_attr({"global_symbol": "relu0", "tir.noalias": True})
        for i, j in T.grid(1, 128):
            with T.block("y"):
                vi, vj = T.axis.remap("SS", [i, j])
                y[vi, vj] = T.max(x[vi, vj], T.float32(0))

    @R.function
    def main(x: R.Tensor((1, 784), "float32"), w0: R.Tensor((128, 784), "float32"),
             b0: R.Tensor((128,), "float32"), w1: R.Tensor((10, 128), "float32"),
             b1: R.Tensor((10,), "float32")) -> R.Tensor((1, 10), "float32"):
        cls = Module
        with R.dataflow():
            lv0 = R.call_dps_packed("env.linear", (x, w0, b0), out_sinfo=R.Tensor((1, 128), dtype="float32"))
            lv1 = R.call_tir(cls.relu0, (lv0,), out_sinfo=R.Tensor((1, 128), dtype="float32"))
            out = R.call_dps_packed("env.linear", (lv1, w1, b1), out_sinfo=R.Tensor((1, 10), dtype="float32"))
            R.output(out)
        return out
