# error: 8:12: unsupported
# a lambda inside a tensor program
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    A[0] = lambda: T.float32(0)
