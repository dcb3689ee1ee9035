from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def mm_bias_relu(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), bias: T.Buffer((64,), "float32"), C: T.Buffer((64, 64), "float32")):
        T.func_attr({"global_symbol": "mm_bias_relu", "tir.noalias": T.bool(True)})
        Y = T.alloc_buffer((64, 64))
        for j_0 in range(8):
            for i, k, j_1 in T.grid(64, 64, 8):
                with T.block("Y"):
                    vi = T.axis.spatial(64, i)
                    vj = T.axis.spatial(64, j_0 * 8 + j_1)
                    vk = T.axis.reduce(64, k)
                    T.reads(A[vi, vk], B[vk, vj])
                    T.writes(Y[vi, vj])
                    with T.init():
                        Y[vi, vj] = T.float32(0.0)
                    Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
            for ax0, ax1 in T.grid(64, 8):
                with T.block("C"):
                    vi = T.axis.spatial(64, ax0)
                    vj = T.axis.spatial(64, j_0 * 8 + ax1)
                    T.reads(Y[vi, vj], bias[vj])
                    T.writes(C[vi, vj])
                    C[vi, vj] = T.max(Y[vi, vj] + bias[vj], T.float32(0.0))
