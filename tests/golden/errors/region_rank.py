# error: 11:21: has 2 dimensions, got 1 index
# a T.reads region with too few indices
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4, 4), "float32")):
    for i, j in T.grid(4, 4):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi])
            T.writes(B[vi, vj])
            B[vi, vj] = A[vi, vj]
