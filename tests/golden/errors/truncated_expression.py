# error: 11:30: never closed
# a file cut in the middle of a statement
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32")):
    for i, j in T.grid(128, 128):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = T.max(A[vi, vj], A[vi