# error: 10:18: argument
# an iter var without its binding
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.block("B"):
            vi = T.axis.spatial(4)
            B[vi] = A[vi]
