# error: 11:21: has 2 dimensions, got 1 index
# a 2-D buffer loaded with one index
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.block("B"):
            vi = T.axis.spatial(4, i)
            B[vi] = A[vi]
