# error: 8:22: out of range
# an integer literal that does not fit in 64 bits
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    A[0] = T.float32(99999999999999999999999)
