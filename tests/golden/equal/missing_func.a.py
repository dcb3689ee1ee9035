# expect: differ
# diff: "neg0"
# One module has a function the other lacks.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def exp0(x: T.Buffer((8,), "float32"), y: T.Buffer((8,), "float32")):
        for i in range(8):
            with T.block("y"):
                vi = T.axis.spatial(8, i)
                y[vi] = T.exp(x[vi])

    @T.prim_func
    def neg0(x: T.Buffer((8,), "float32"), y: T.Buffer((8,), "float32")):
        for i in range(8):
            with T.block("y"):
                vi = T.axis.spatial(8, i)
                y[vi] = T.float32(0) - x[vi]
