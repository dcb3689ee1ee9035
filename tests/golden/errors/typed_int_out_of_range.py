# error: 8:19: out of range for int8
# T.int8(300) does not fit in int8
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((4,), "int8")):
    A[0] = T.int8(300)
