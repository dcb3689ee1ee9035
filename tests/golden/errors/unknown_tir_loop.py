# error: 8:14: unknown function 'T.serail'
# a misspelled loop kind
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in T.serail(4):
        A[i] = T.float32(0)
