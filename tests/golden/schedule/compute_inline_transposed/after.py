# Expected: B gone; both reads of B replaced by A[...] * 2 at the read's indices.
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def chain(A: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 63), "float32")):
        T.func_attr({"global_symbol": "chain", "tir.noalias": T.bool(True)})
        for i, j in T.grid(64, 63):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[0:64, 0:64])
                T.writes(C[vi, vj])
                C[vi, vj] = A[vj + 1, vi] * T.float32(2.0) + A[vi, vj] * T.float32(2.0) + T.float32(1.0)
