# call_tir with one output, call_tir with two, and call_dps_packed: each
# output gets its own allocation, the call writes into it, and the dataflow
# block becomes a plain one.
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class Module:
    @T.prim_func
    def relu(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):
        for i, j in T.grid(4, 8):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = T.max(A[vi, vj], T.float32(0))

    @T.prim_func
    def split(A: T.Buffer((4, 8), "float32"), B: T.Buffer((2, 8), "float32"), C: T.Buffer((2, 8), "float32")):
        for i, j in T.grid(2, 8):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj]
        for i, j in T.grid(2, 8):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi + 2, vj]

    @R.function
    def main(x: R.Tensor((4, 8), "float32")) -> R.Tensor((2, 8), "float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.relu, (x,), out_sinfo=R.Tensor((4, 8), "float32"))
            t = R.call_tir(cls.split, (lv,), out_sinfo=[R.Tensor((2, 8), "float32"), R.Tensor((2, 8), "float32")])
            a = t[0]
            gv = R.call_dps_packed("env.add", (a, t[1]), out_sinfo=R.Tensor((2, 8), "float32"))
            R.output(gv)
        return gv
