from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def add(A: T.Buffer((127,), "float32"), B: T.Buffer((127,), "float32"), C: T.Buffer((127,), "float32")):
        T.func_attr({"global_symbol": "add", "tir.noalias": T.bool(True)})
        for i_0_0, i_0_1, i_1 in T.grid(7, 5, 4):
            with T.block("C"):
                vi = T.axis.spatial(127, i_0_0 * 20 + i_0_1 * 4 + i_1)
                T.where(i_0_0 * 20 + i_0_1 * 4 + i_1 < 127 and i_0_0 * 5 + i_0_1 < 32)
                T.reads(A[vi], B[vi])
                T.writes(C[vi])
                C[vi] = A[vi] + B[vi]
