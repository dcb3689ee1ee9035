# error: 7:7: needs a type
# a prim func param without its type
from tvm.script import tir as T


@T.prim_func
def f(A):
    A[0] = T.float32(0)
