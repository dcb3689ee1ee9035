# error: 10:22: 2 iter kinds for 3
# T.axis.remap with two kinds for three loop vars
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((4, 4, 4), "float32")):
    for i, j, k in T.grid(4, 4, 4):
        with T.block("A"):
            vi, vj = T.axis.remap("SS", [i, j, k])
            A[vi, vj, 0] = T.float32(0)
