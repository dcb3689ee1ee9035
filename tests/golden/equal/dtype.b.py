from tvm.script import tir as T


@T.prim_func
def copy(A: T.Buffer((32, 32), "float16"), B: T.Buffer((32, 32), "float16")):
    for i, j in T.grid(32, 32):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj]
