# error: 7:31: unknown dtype 'float33'
# a buffer of dtype float33
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((128, 128), "float33")):
    A[0, 0] = T.float32(0)
