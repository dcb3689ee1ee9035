# error: 11:29: undefined name 'Z'
# a load from a buffer that was never declared
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.block("B"):
            vi = T.axis.spatial(4, i)
            B[vi] = A[vi] + Z[vi]
