# Transpose of an n x m matrix, with both sizes declared in one tuple
# assignment and the buffers bound from handles.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def transpose(a: T.handle, b: T.handle):
        T.func_attr({"global_symbol": "transpose", "tir.noalias": True})
        n, m = T.int64(), T.int64()
        A = T.match_buffer(a, (n, m), "float32")
        B = T.match_buffer(b, (m, n), "float32")
        for i, j in T.grid(m, n):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vj, vi]
