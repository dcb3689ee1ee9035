# error: 9:5: unexpected 'else'
# an else with no if before it
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    A[0] = T.float32(0)
    else:
        B[0] = T.float32(1)
