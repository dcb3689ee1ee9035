# Unused pure bindings go, including a chain that only feeds unused ones
# (u2 uses u1); a packed call is kept for its effect; the prim func that
# nothing calls any more goes, the called one stays.
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class Module:
    @T.prim_func
    def relu(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.block("B"):
                vi = T.axis.spatial(4, i)
                B[vi] = T.max(A[vi], T.float32(0))

    @T.prim_func
    def unused(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.block("B"):
                vi = T.axis.spatial(4, i)
                B[vi] = A[vi]

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        with R.dataflow():
            u1 = R.call_tir(cls.unused, (x,), out_sinfo=R.Tensor((4,), "float32"))
            u2 = R.add(u1, x)
            lv = R.call_tir(cls.relu, (x,), out_sinfo=R.Tensor((4,), "float32"))
            t = (lv, x)
            R.output(lv)
        _ = R.call_packed("env.print", lv, sinfo_args=R.Object)
        s = R.shape([4])
        return lv
