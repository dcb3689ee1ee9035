# error: 6:1: '@T.prim_fun'
# a misspelled decorator
from tvm.script import tir as T


@T.prim_fun
def f(A: T.Buffer((4,), "float32")):
    A[0] = T.float32(0)
