# Expected: block B stores A * 2 + bias into C at the transposed index.
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def scale_bias(A: T.Buffer((64, 32), "float32"), bias: T.Buffer((32,), "float32"), C: T.Buffer((32, 64), "float32")):
        T.func_attr({"global_symbol": "scale_bias", "tir.noalias": T.bool(True)})
        for i, j in T.grid(64, 32):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj], bias[vj])
                T.writes(C[vj, vi])
                C[vj, vi] = A[vi, vj] * T.float32(2.0) + bias[vj]
