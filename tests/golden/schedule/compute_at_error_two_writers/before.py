# B is written by two blocks; moving one of them would reorder the writes.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def accum(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
        T.func_attr({"global_symbol": "accum", "tir.noalias": True})
        B = T.alloc_buffer((64,), "float32")
        for i in range(64):
            with T.block("B"):
                vi = T.axis.spatial(64, i)
                B[vi] = A[vi]
        for i in range(64):
            with T.block("B2"):
                vi = T.axis.spatial(64, i)
                B[vi] = B[vi] + A[vi]
        for i in range(64):
            with T.block("C"):
                vi = T.axis.spatial(64, i)
                C[vi] = B[vi] * T.float32(2)
