# error: 7:6: never closed
# a file cut inside a function signature
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((128, 128), "float32"), B: T.Buf