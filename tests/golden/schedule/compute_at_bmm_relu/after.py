# Expected: Y recomputed per (n, i_0, j_0) tile over 32x32 outputs and all of k.
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def bmm_relu(A: T.Buffer((16, 128, 128), "float32"), B: T.Buffer((16, 128, 128), "float32"), C: T.Buffer((16, 128, 128), "float32")):
        T.func_attr({"global_symbol": "bmm_relu", "tir.noalias": T.bool(True)})
        Y = T.alloc_buffer((16, 128, 128))
        for n, i_0, j_0 in T.grid(16, 4, 4):
            for ax0, ax1, ax2 in T.grid(32, 32, 128):
                with T.block("Y"):
                    vn = T.axis.spatial(16, n)
                    vi = T.axis.spatial(128, i_0 * 32 + ax0)
                    vj = T.axis.spatial(128, j_0 * 32 + ax1)
                    vk = T.axis.reduce(128, ax2)
                    T.reads(A[vn, vi, vk], B[vn, vk, vj])
                    T.writes(Y[vn, vi, vj])
                    with T.init():
                        Y[vn, vi, vj] = T.float32(0.0)
                    Y[vn, vi, vj] = Y[vn, vi, vj] + A[vn, vi, vk] * B[vn, vk, vj]
            for i_1, j_1 in T.grid(32, 32):
                with T.block("C"):
                    vn = T.axis.spatial(16, n)
                    vi = T.axis.spatial(128, i_0 * 32 + i_1)
                    vj = T.axis.spatial(128, j_0 * 32 + j_1)
                    T.reads(Y[vn, vi, vj])
                    T.writes(C[vn, vi, vj])
                    C[vn, vi, vj] = T.max(Y[vn, vi, vj], T.float32(0.0))
