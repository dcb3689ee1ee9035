# B's body is a loop of stores, not one store.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def loop_body(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
        T.func_attr({"global_symbol": "loop_body", "tir.noalias": True})
        B = T.alloc_buffer((64,), "float32")
        for i in range(16):
            with T.block("B"):
                vi = T.axis.spatial(16, i)
                for k in range(4):
                    B[vi * 4 + k] = A[vi * 4 + k] + T.float32(1)
        for i in range(64):
            with T.block("C"):
                vi = T.axis.spatial(64, i)
                C[vi] = B[vi] * T.float32(2)
