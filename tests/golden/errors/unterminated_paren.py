# error: 8:17: never closed
# an opening parenthesis that is never closed
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    A[0] = T.max(T.float32(0), T.float32(1)
    B[0] = T.float32(2)
