# error: 9:5: indent
# a for statement whose body is not indented
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
    A[i] = T.float32(0)
