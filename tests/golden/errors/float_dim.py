# error: 7:20: got a float
# a buffer dimension that is a float
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((1.5, 2), "float32")):
    A[0, 0] = T.float32(0)
