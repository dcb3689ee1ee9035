from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def two(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        T.func_attr({"global_symbol": "two", "tir.noalias": T.bool(True)})
        for i in range(16):
            for j in range(16):
                with T.block("B"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.reads(A[vi, vj])
                    T.writes(B[vi, vj])
                    B[vi, vj] = A[vi, vj] + T.float32(1.0)
            for j2 in range(16):
                with T.block("C"):
                    vi, vj = T.axis.remap("SS", [i, j2])
                    T.reads(A[vi, vj])
                    T.writes(C[vi, vj])
                    C[vi, vj] = A[vi, vj] * T.float32(2.0)
