# y = x aliases go (a chain of them too); a tuple rebuilt from all its items
# is the tuple; a dataflow var bound only to be output becomes the output
# var (gv4); an output aliasing a dataflow var used elsewhere stays (gv).
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class Module:
    @T.prim_func
    def two(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.block("B"):
                vi = T.axis.spatial(4, i)
                B[vi] = A[vi]
                C[vi] = A[vi]

    @R.function
    def main(x: R.Tensor((4,), "float32")):
        cls = Module
        with R.dataflow():
            a = x
            b = a
            t = R.call_tir(cls.two, (b,), out_sinfo=[R.Tensor((4,), "float32"), R.Tensor((4,), "float32")])
            t2 = (t[0], t[1])
            lv = R.add(t2[0], b)
            gv = lv
            lv2 = R.add(lv, x)
            gv2 = lv2
            gv3 = lv2
            lv3 = R.multiply(x, x)
            gv4 = lv3
            R.output(gv, gv2, gv3, gv4)
        return (gv, gv2, gv3, gv4)
