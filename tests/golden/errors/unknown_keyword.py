# error: 7:36: no argument 'scop'
# a misspelled keyword argument
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((4,), "float32", scop="local")):
    A[0] = T.float32(0)
