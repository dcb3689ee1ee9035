from tvm.script import tir as T
@T.prim_func
def f(A: T.Buffer((4096,), "float32"), B: T.Buffer((4096,), "float32")):
    for j in range(4096):
        with T.block("B"):
            vj = T.axis.spatial(4096, j)
            B[vj] = A[vj]
