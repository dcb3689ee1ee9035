# error: 11:13: has 2 dimensions, got 3 indices
# a 2-D buffer stored with three indices
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((4, 4), "float32")):
    for i, j in T.grid(4, 4):
        with T.block("A"):
            vi, vj = T.axis.remap("SS", [i, j])
            A[vi, vj, 0] = T.float32(0)
