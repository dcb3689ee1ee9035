# Operations between two integer literals, built with their call forms
# (T.Add(2, 3) is an Add node, not 5): printed as calls again, since
# `2 + 3` would read back folded, as Python folds it.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def scale(C: T.Buffer((4,), "int32")):
        for i in range(4):
            with T.block("C"):
                vi = T.axis.spatial(4, i)
                C[vi] = T.Add(2, 3) + T.Mul(4, 5) * vi + T.Sub(128, 128) + T.floordiv(7, 2) + T.min(3, 4) + T.Cast("int32", T.LT(1, 2))
