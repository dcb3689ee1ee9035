# Expected: init and update of Y per tile, k split by 4 and unrolled, j vectorized.
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def bmm_relu(A: T.Buffer((16, 128, 128), "float32"), B: T.Buffer((16, 128, 128), "float32"), C: T.Buffer((16, 128, 128), "float32")):
        T.func_attr({"global_symbol": "bmm_relu", "tir.noalias": T.bool(True)})
        Y = T.alloc_buffer((16, 128, 128))
        for n in T.parallel(16):
            for i_0, j_0 in T.grid(4, 4):
                for ax0_init, ax1_init in T.grid(32, 32):
                    with T.block("Y_init"):
                        vn = T.axis.spatial(16, n)
                        vi = T.axis.spatial(128, i_0 * 32 + ax0_init)
                        vj = T.axis.spatial(128, j_0 * 32 + ax1_init)
                        T.reads()
                        T.writes(Y[vn, vi, vj])
                        Y[vn, vi, vj] = T.float32(0.0)
                for ax2_0, ax0 in T.grid(32, 32):
                    for ax2_1 in T.unroll(4):
                        for ax1 in T.vectorized(32):
                            with T.block("Y_update"):
                                vn = T.axis.spatial(16, n)
                                vi = T.axis.spatial(128, i_0 * 32 + ax0)
                                vj = T.axis.spatial(128, j_0 * 32 + ax1)
                                vk = T.axis.reduce(128, ax2_0 * 4 + ax2_1)
                                T.reads(Y[vn, vi, vj], A[vn, vi, vk], B[vn, vk, vj])
                                T.writes(Y[vn, vi, vj])
                                Y[vn, vi, vj] = Y[vn, vi, vj] + A[vn, vi, vk] * B[vn, vk, vj]
                for i_1 in range(32):
                    for j_1 in T.vectorized(32):
                        with T.block("C"):
                            vn = T.axis.spatial(16, n)
                            vi = T.axis.spatial(128, i_0 * 32 + i_1)
                            vj = T.axis.spatial(128, j_0 * 32 + j_1)
                            T.reads(Y[vn, vi, vj])
                            T.writes(C[vn, vi, vj])
                            C[vn, vi, vj] = T.max(Y[vn, vi, vj], T.float32(0.0))
