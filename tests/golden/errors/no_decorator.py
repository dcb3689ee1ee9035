# error: 6:1: decorat
# a def without @T.prim_func or @R.function
from tvm.script import tir as T


def f(A: T.Buffer((4,), "float32")):
    A[0] = T.float32(0)
