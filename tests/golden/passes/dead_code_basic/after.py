from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def relu(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.block("B"):
                vi = T.axis.remap("S", [i])
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = T.max(A[vi], T.float32(0.0))

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.relu, (x,), out_sinfo=R.Tensor((4,), dtype="float32"))
            R.output(lv)
        _ = R.call_packed("env.print", lv, sinfo_args=R.Object)
        return lv

