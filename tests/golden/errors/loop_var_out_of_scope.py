# error: 10:7: undefined name 'i'
# a loop var used after its loop
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        A[i] = T.float32(0)
    B[i] = T.float32(1)
