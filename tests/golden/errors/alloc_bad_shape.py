# error: 8:24: dimension
# T.alloc_buffer given a string as its shape
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    X = T.alloc_buffer("abc")
    A[0] = T.float32(0)
