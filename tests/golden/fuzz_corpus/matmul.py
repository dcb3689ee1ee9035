# Fuzzer corpus: a 16x16x16 matmul followed by ReLU (a reduction block and
# its elementwise consumer).
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def matmul(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"),
               C: T.Buffer((16, 16), "float32")):
        T.func_attr({"global_symbol": "matmul", "tir.noalias": True})
        Y = T.alloc_buffer((16, 16), "float32")
        for i, j, k in T.grid(16, 16, 16):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(16, 16):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.max(Y[vi, vj], T.float32(0))
