# error: 8:24: too large
# a buffer with more elements than any memory holds
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    X = T.alloc_buffer((4611686018427387904, 4611686018427387904), "float32")
    for i in range(4):
        with T.block("A"):
            vi = T.axis.spatial(4, i)
            X[0, vi] = A[vi]
