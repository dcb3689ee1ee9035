# error: 10:26: 3 names
# three names assigned from a remap of two
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((4, 4), "float32")):
    for i, j in T.grid(4, 4):
        with T.block("A"):
            vi, vj, vk = T.axis.remap("SS", [i, j])
            A[vi, vj] = T.float32(0)
