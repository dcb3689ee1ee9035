from tvm.script import tir as T


@T.prim_func
def add(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32"),
        C: T.Buffer((1024,), "float32")):
    for i in T.serial(1024):
        with T.block("C"):
            vi = T.axis.spatial(1024, i)
            C[vi] = A[vi] + B[vi]
