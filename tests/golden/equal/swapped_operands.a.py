# expect: differ
# diff: function "sub"
# Equality is structural, not algebraic: a - b is not b - a.
from tvm.script import tir as T


@T.prim_func
def sub(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.block("C"):
            vi = T.axis.spatial(16, i)
            C[vi] = A[vi] - B[vi]
