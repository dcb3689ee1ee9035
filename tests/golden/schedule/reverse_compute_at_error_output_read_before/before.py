# D reads C (its initial contents) before block C writes it; moving C
# before D would change what D reads.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def early_read(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32"),
                   D: T.Buffer((64,), "float32")):
        T.func_attr({"global_symbol": "early_read", "tir.noalias": True})
        B = T.alloc_buffer((64,), "float32")
        for i in range(64):
            with T.block("B"):
                vi = T.axis.spatial(64, i)
                B[vi] = A[vi] + T.float32(1)
        for i in range(64):
            with T.block("D"):
                vi = T.axis.spatial(64, i)
                D[vi] = C[vi] * T.float32(3)
        for i in range(64):
            with T.block("C"):
                vi = T.axis.spatial(64, i)
                C[vi] = B[vi] * T.float32(2)
