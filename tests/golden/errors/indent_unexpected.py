# error: 9:9: indent
# a line indented deeper with no block opened
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    A[0] = T.float32(0)
        B[0] = T.float32(1)
