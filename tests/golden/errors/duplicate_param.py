# error: 7:37: duplicate parameter 'A'
# two params of the same name
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((4,), "float32"), A: T.Buffer((4,), "float32")):
    A[0] = T.float32(0)
