from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def scale(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32")):
        T.func_attr({"global_symbol": "scale", "tir.noalias": T.bool(True)})
        for i in T.serial(64, annotations={"pragma_auto_unroll_max_step": 16}):
            for j in range(64):
                with T.block("B"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.reads(A[vi, vj])
                    T.writes(B[vi, vj])
                    B[vi, vj] = A[vi, vj] * T.float32(2.0)
