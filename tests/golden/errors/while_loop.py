# error: 8:5: 'while'
# a while loop, which is not TVMScript
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    while True:
        A[0] = T.float32(0)
