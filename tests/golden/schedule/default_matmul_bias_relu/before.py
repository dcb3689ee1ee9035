# Default rules: matmul, bias add and relu in one function; the epilogues
# fold into the tile's write-back.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def dense(A: T.Buffer((24, 32), "float32"), B: T.Buffer((32, 48), "float32"), bias: T.Buffer((48,), "float32"), Y: T.Buffer((24, 48), "float32")):
        T.func_attr({"global_symbol": "dense", "tir.noalias": True})
        C = T.alloc_buffer((24, 48), "float32")
        D = T.alloc_buffer((24, 48), "float32")
        for i, j, k in T.grid(24, 48, 32):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(24, 48):
            with T.block("bias"):
                vi, vj = T.axis.remap("SS", [i, j])
                D[vi, vj] = C[vi, vj] + bias[vj]
        for i, j in T.grid(24, 48):
            with T.block("relu"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.max(D[vi, vj], T.float32(0))
