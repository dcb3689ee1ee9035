# error: 10:1: indent
# a block statement at the end of the file, with no body
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.block("A"):
