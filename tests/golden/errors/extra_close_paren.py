# error: 8:24: unexpected ')'
# one closing parenthesis too many
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    A[0] = T.float32(0))
