# error: 9:19: chain
# a chained comparison, which TVMScript does not allow
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        if 0 <= i < 3:
            A[i] = T.float32(0)
