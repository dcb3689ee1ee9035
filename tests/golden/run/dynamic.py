# Symbolic sizes: buffers bound from T.handle params by T.match_buffer, an
# intermediate buffer whose size is symbolic, and a reduction over a
# symbolic extent.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def dyn_rowsum(a: T.handle, s: T.handle):
        T.func_attr({"global_symbol": "dyn_rowsum", "tir.noalias": True})
        n, m = T.int64(), T.int64()
        A = T.match_buffer(a, (n, m), "float32")
        S = T.match_buffer(s, (n,), "float32")
        H = T.alloc_buffer((n, m), "float32")
        for i, j in T.grid(n, m):
            with T.block("half"):
                vi, vj = T.axis.remap("SS", [i, j])
                H[vi, vj] = A[vi, vj] * T.float32(0.5)
        for i, j in T.grid(n, m):
            with T.block("sum"):
                vi, vj = T.axis.remap("SR", [i, j])
                with T.init():
                    S[vi] = T.float32(0)
                S[vi] = S[vi] + H[vi, vj]

    @T.prim_func
    def dyn_add(a: T.handle, b: T.handle, c: T.handle):
        T.func_attr({"global_symbol": "dyn_add", "tir.noalias": True})
        n = T.int32()
        A = T.match_buffer(a, (n, 3), "int32")
        B = T.match_buffer(b, (3,), "int32")
        C = T.match_buffer(c, (n, 3), "int32")
        for i, j in T.grid(n, 3):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] + B[vj] * vi
