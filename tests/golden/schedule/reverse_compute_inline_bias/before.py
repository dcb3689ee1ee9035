# A scale followed by a transposing bias add: reverse_compute_inline renames
# the consumer's iter vars to the producer's, in the transposed store index
# and in the bias read alike.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def scale_bias(A: T.Buffer((64, 32), "float32"), bias: T.Buffer((32,), "float32"),
                   C: T.Buffer((32, 64), "float32")):
        T.func_attr({"global_symbol": "scale_bias", "tir.noalias": True})
        B = T.alloc_buffer((64, 32), "float32")
        for i, j in T.grid(64, 32):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2)
        for j, i in T.grid(32, 64):
            with T.block("C"):
                vj, vi = T.axis.remap("SS", [j, i])
                C[vj, vi] = B[vi, vj] + bias[vj]
