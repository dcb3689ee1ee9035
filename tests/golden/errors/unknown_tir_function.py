# error: 11:21: unknown function 'T.maximum'
# a T. function that does not exist
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.block("B"):
            vi = T.axis.spatial(4, i)
            B[vi] = T.maximum(A[vi], T.float32(0))
