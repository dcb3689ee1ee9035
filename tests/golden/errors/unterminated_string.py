# error: 7:25: string
# a string literal that runs to the end of the line
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((4,), "float32)):
    A[0] = T.float32(0)
