# T1 overwrites T0, which B reads, before C reads B: inlining B into C
# would read the new T0.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def overwrite(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
        T.func_attr({"global_symbol": "overwrite", "tir.noalias": True})
        T0 = T.alloc_buffer((64,), "float32")
        B = T.alloc_buffer((64,), "float32")
        for i in range(64):
            with T.block("T0"):
                vi = T.axis.spatial(64, i)
                T0[vi] = A[vi] + T.float32(1)
        for i in range(64):
            with T.block("B"):
                vi = T.axis.spatial(64, i)
                B[vi] = T0[vi] * T.float32(2)
        for i in range(64):
            with T.block("T1"):
                vi = T.axis.spatial(64, i)
                T0[vi] = A[vi] - T.float32(1)
        for i in range(64):
            with T.block("C"):
                vi = T.axis.spatial(64, i)
                C[vi] = B[vi] + T0[vi]
