# P reads Y before the matmul block writes it; C reads it after.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def reader_first(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32"), D: T.Buffer((64, 64), "float32")):
        T.func_attr({"global_symbol": "reader_first", "tir.noalias": True})
        Y = T.alloc_buffer((64, 64))
        for i, j in T.grid(64, 64):
            with T.block("P"):
                vi, vj = T.axis.remap("SS", [i, j])
                D[vi, vj] = Y[vi, vj] + T.float32(1)
        for i, j, k in T.grid(64, 64, 64):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(64, 64):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.max(Y[vi, vj], T.float32(0))
