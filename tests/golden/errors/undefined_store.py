# error: 8:5: undefined name 'Q'
# a store to a buffer that was never declared
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    Q[0] = T.float32(1)
