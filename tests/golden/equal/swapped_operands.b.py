from tvm.script import tir as T


@T.prim_func
def sub(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.block("C"):
            vi = T.axis.spatial(16, i)
            C[vi] = B[vi] - A[vi]
