# 64x64 matmul, then a bias add and ReLU that read the bias beside the
# matmul's output: moved under the j_0 tile, the epilogue computes the
# tile's 64 x 8 elements, not the whole output (the bias, which nothing
# under the loop writes, does not widen its range).
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def mm_bias_relu(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"),
                     bias: T.Buffer((64,), "float32"), C: T.Buffer((64, 64), "float32")):
        T.func_attr({"global_symbol": "mm_bias_relu", "tir.noalias": True})
        Y = T.alloc_buffer((64, 64), "float32")
        for i, j, k in T.grid(64, 64, 64):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(64, 64):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.max(Y[vi, vj] + bias[vj], T.float32(0))
