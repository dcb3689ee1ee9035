from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def two(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.block("B"):
                vi = T.axis.remap("S", [i])
                T.reads(A[vi])
                T.writes(B[vi], C[vi])
                B[vi] = A[vi]
                C[vi] = A[vi]

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tuple(R.Object, R.Object, R.Object, R.Object):
        cls = Module
        with R.dataflow():
            t = R.call_tir(cls.two, (x,), out_sinfo=[R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")])
            lv = R.add(t[0], x)
            gv = lv
            lv2 = R.add(lv, x)
            gv2 = lv2
            gv3 = lv2
            gv4 = R.multiply(x, x)
            R.output(gv, gv2, gv3, gv4)
        return (gv, gv2, gv3, gv4)

