# error: 11:21: float32 and int32
# float32 + int32 with no cast
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "int32"), C: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.block("C"):
            vi = T.axis.spatial(4, i)
            C[vi] = A[vi] + B[vi]
