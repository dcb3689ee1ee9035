# error: 8:25: unexpected character
# a character that is not Python
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    A[0] = T.float32(0) $ 1
