from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def bmm(A: T.Buffer((3, 24, 16), "float32"), B: T.Buffer((3, 16, 32), "float32"), C: T.Buffer((3, 24, 32), "float32")):
        T.func_attr({"global_symbol": "bmm", "tir.noalias": T.bool(True)})
        C_local = T.alloc_buffer((3, 24, 32), scope="local")
        for b_j_0_fused in T.parallel(6):
            for i_0 in range(4):
                for i_1_init in T.unroll(6):
                    for j_1_init in T.unroll(2):
                        for j_2_init in T.vectorized(8):
                            with T.block("C_init"):
                                vb = T.axis.spatial(3, b_j_0_fused // 2)
                                vi = T.axis.spatial(24, i_0 * 6 + i_1_init)
                                vj = T.axis.spatial(32, b_j_0_fused % 2 * 16 + j_1_init * 8 + j_2_init)
                                T.reads()
                                T.writes(C_local[vb, vi, vj])
                                C_local[vb, vi, vj] = T.float32(0.0)
                for k in range(16):
                    for i_1 in T.unroll(6):
                        for j_1 in T.unroll(2):
                            for j_2 in T.vectorized(8):
                                with T.block("C_update"):
                                    vb = T.axis.spatial(3, b_j_0_fused // 2)
                                    vi = T.axis.spatial(24, i_0 * 6 + i_1)
                                    vj = T.axis.spatial(32, b_j_0_fused % 2 * 16 + j_1 * 8 + j_2)
                                    vk = T.axis.reduce(16, k)
                                    T.reads(C_local[vb, vi, vj], A[vb, vi, vk], B[vb, vk, vj])
                                    T.writes(C_local[vb, vi, vj])
                                    C_local[vb, vi, vj] = C_local[vb, vi, vj] + A[vb, vi, vk] * B[vb, vk, vj]
                for ax0_1 in T.unroll(6):
                    for ax1_1_0 in T.unroll(2):
                        for ax1_1_1 in T.vectorized(8):
                            with T.block("C_local"):
                                v0 = T.axis.spatial(3, b_j_0_fused // 2)
                                v1 = T.axis.spatial(24, i_0 * 6 + ax0_1)
                                v2 = T.axis.spatial(32, b_j_0_fused % 2 * 16 + ax1_1_0 * 8 + ax1_1_1)
                                T.reads(C_local[v0, v1, v2])
                                T.writes(C[v0, v1, v2])
                                C[v0, v1, v2] = C_local[v0, v1, v2]
