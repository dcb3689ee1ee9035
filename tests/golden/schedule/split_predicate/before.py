from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def add(A: T.Buffer((127,), "float32"), B: T.Buffer((127,), "float32"), C: T.Buffer((127,), "float32")):
        T.func_attr({"global_symbol": "add", "tir.noalias": T.bool(True)})
        for i in range(127):
            with T.block("C"):
                vi = T.axis.spatial(127, i)
                T.reads(A[vi], B[vi])
                T.writes(C[vi])
                C[vi] = A[vi] + B[vi]
