from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((1024, 1024), "float32"), B: T.Buffer((1024, 1024), "float32"), C: T.Buffer((1024, 1024), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
        C_global = T.alloc_buffer((1024, 1024))
        for i_0_j_0_i_1_j_1_fused in T.parallel(4096, annotations={"pragma_auto_unroll_max_step": 64, "pragma_unroll_explicit": 1}):
            for i_2_init, j_2_init, i_3_init in T.grid(1, 1, 8):
                for j_3_fused_init in T.vectorized(32):
                    with T.block("C_init"):
                        vi = T.axis.spatial(1024, i_0_j_0_i_1_j_1_fused // 256 * 64 + i_0_j_0_i_1_j_1_fused // 2 % 8 * 8 + i_2_init * 8 + i_3_init)
                        vj = T.axis.spatial(1024, i_0_j_0_i_1_j_1_fused // 16 % 16 * 64 + i_0_j_0_i_1_j_1_fused % 2 * 32 + j_2_init * 32 + j_3_fused_init)
                        T.reads()
                        T.writes(C_global[vi, vj])
                        T.block_attr({"meta_schedule.tiling_structure": "SSRSRS"})
                        C_global[vi, vj] = T.float32(0.0)
            for k_0, i_2, j_2, k_1, i_3 in T.grid(64, 1, 1, 16, 8):
                for j_3_fused in T.vectorized(32):
                    with T.block("C_update"):
                        vi = T.axis.spatial(1024, i_0_j_0_i_1_j_1_fused // 256 * 64 + i_0_j_0_i_1_j_1_fused // 2 % 8 * 8 + i_2 * 8 + i_3)
                        vj = T.axis.spatial(1024, i_0_j_0_i_1_j_1_fused // 16 % 16 * 64 + i_0_j_0_i_1_j_1_fused % 2 * 32 + j_2 * 32 + j_3_fused)
                        vk = T.axis.reduce(1024, k_0 * 16 + k_1)
                        T.reads(C_global[vi, vj], A[vi, vk], B[vk, vj])
                        T.writes(C_global[vi, vj])
                        T.block_attr({"meta_schedule.tiling_structure": "SSRSRS"})
                        C_global[vi, vj] = C_global[vi, vj] + A[vi, vk] * B[vk, vj]
            for ax0_1 in range(8):
                for ax1_1_fused in T.vectorized(32):
                    with T.block("C_global"):
                        v0 = T.axis.spatial(1024, i_0_j_0_i_1_j_1_fused // 256 * 64 + i_0_j_0_i_1_j_1_fused // 2 % 8 * 8 + ax0_1)
                        v1 = T.axis.spatial(1024, i_0_j_0_i_1_j_1_fused // 16 % 16 * 64 + i_0_j_0_i_1_j_1_fused % 2 * 32 + ax1_1_fused)
                        T.reads(C_global[v0, v1])
                        T.writes(C[v0, v1])
                        C[v0, v1] = C_global[v0, v1]
