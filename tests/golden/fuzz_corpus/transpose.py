# Fuzzer corpus: a 16x8 transpose into an intermediate, then a scale of the
# transposed 8x16 tensor.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def transpose(A: T.Buffer((16, 8), "float32"), B: T.Buffer((8, 16), "float32")):
        T.func_attr({"global_symbol": "transpose", "tir.noalias": True})
        T_t = T.alloc_buffer((8, 16), "float32")
        for i, j in T.grid(8, 16):
            with T.block("T"):
                vi, vj = T.axis.remap("SS", [i, j])
                T_t[vi, vj] = A[vj, vi]
        for i, j in T.grid(8, 16):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = T_t[vi, vj] * T.float32(2)
