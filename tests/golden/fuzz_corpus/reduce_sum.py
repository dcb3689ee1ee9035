# Fuzzer corpus: a sum over the two inner axes of a 4x8x16 tensor, then the
# sum of those 4 partial sums (two reduction blocks in a row).
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def reduce_sum(A: T.Buffer((4, 8, 16), "float32"), R: T.Buffer((1,), "float32")):
        T.func_attr({"global_symbol": "reduce_sum", "tir.noalias": True})
        S = T.alloc_buffer((4,), "float32")
        for b, i, k in T.grid(4, 8, 16):
            with T.block("S"):
                vb, vi, vk = T.axis.remap("SRR", [b, i, k])
                with T.init():
                    S[vb] = T.float32(0)
                S[vb] = S[vb] + A[vb, vi, vk]
        for z, b in T.grid(1, 4):
            with T.block("R"):
                vz, vb = T.axis.remap("SR", [z, b])
                with T.init():
                    R[vz] = T.float32(0)
                R[vz] = R[vz] + S[vb]
