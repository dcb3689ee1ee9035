from tvm.script import tir as T


@T.prim_func
def relu(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
    for i in range(256):
        with T.block("B"):
            vi = T.axis.spatial(256, i)
            B[vi] = T.max(A[vi], T.float32(1))
