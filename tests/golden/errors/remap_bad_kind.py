# error: 10:35: 'X'
# an iter kind letter that is neither S nor R
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((4, 4), "float32")):
    for i, j in T.grid(4, 4):
        with T.block("A"):
            vi, vj = T.axis.remap("SX", [i, j])
            A[vi, vj] = T.float32(0)
