from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def add(A: T.Buffer((127,), "float32"), B: T.Buffer((127,), "float32"), C: T.Buffer((127,), "float32")):
        T.func_attr({"global_symbol": "add", "tir.noalias": T.bool(True)})
        for i_0, i_1 in T.grid(32, 4):
            with T.block("C"):
                vi = T.axis.spatial(127, i_0 * 4 + i_1)
                T.where(i_0 * 4 + i_1 < 127)
                T.reads(A[vi], B[vi])
                T.writes(C[vi])
                C[vi] = A[vi] + B[vi]
