# B stores at vi * 2: the store index is not an iter var, so a read of B
# cannot be turned into B's expression by renaming.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def strided(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
        T.func_attr({"global_symbol": "strided", "tir.noalias": True})
        B = T.alloc_buffer((64,), "float32")
        for i in range(32):
            with T.block("B"):
                vi = T.axis.spatial(32, i)
                B[vi * 2] = A[vi] + T.float32(1)
        for i in range(32):
            with T.block("C"):
                vi = T.axis.spatial(32, i)
                C[vi] = B[vi * 2] * T.float32(2)
