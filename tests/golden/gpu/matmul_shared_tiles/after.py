from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((256, 256), "float32"), B: T.Buffer((256, 256), "float32"), C: T.Buffer((256, 256), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
        C_local = T.alloc_buffer((256, 256), scope="local")
        A_shared = T.alloc_buffer((256, 256), scope="shared")
        B_shared = T.alloc_buffer((256, 256), scope="shared")
        for i_0 in T.thread_binding(8, thread="blockIdx.y"):
            for j_0 in T.thread_binding(8, thread="blockIdx.x"):
                for i_1_j_1_fused in T.thread_binding(64, thread="threadIdx.x"):
                    for i_2_init, j_2_init in T.grid(4, 4):
                        with T.block("C_init"):
                            vi = T.axis.spatial(256, i_0 * 32 + i_1_j_1_fused // 8 * 4 + i_2_init)
                            vj = T.axis.spatial(256, j_0 * 32 + i_1_j_1_fused % 8 * 4 + j_2_init)
                            T.reads()
                            T.writes(C_local[vi, vj])
                            C_local[vi, vj] = T.float32(0.0)
                    for k_0 in range(32):
                        for ax0_2_ax1_2_fused_0 in range(1):
                            for ax0_2_ax1_2_fused_1 in T.thread_binding(64, thread="threadIdx.x"):
                                for ax0_2_ax1_2_fused_2 in T.vectorized(4):
                                    with T.block("A_shared"):
                                        v0 = T.axis.spatial(256, i_0 * 32 + (ax0_2_ax1_2_fused_0 * 64 + ax0_2_ax1_2_fused_1) // 2)
                                        v1 = T.axis.spatial(256, k_0 * 8 + (ax0_2_ax1_2_fused_0 * 64 + ax0_2_ax1_2_fused_1) % 2 * 4 + ax0_2_ax1_2_fused_2)
                                        T.reads(A[v0, v1])
                                        T.writes(A_shared[v0, v1])
                                        A_shared[v0, v1] = A[v0, v1]
                        for ax0_2_ax1_2_fused_0_1 in range(1):
                            for ax0_2_ax1_2_fused_1_1 in T.thread_binding(64, thread="threadIdx.x"):
                                for ax0_2_ax1_2_fused_2_1 in T.vectorized(4):
                                    with T.block("B_shared"):
                                        v0 = T.axis.spatial(256, k_0 * 8 + (ax0_2_ax1_2_fused_0_1 * 64 + ax0_2_ax1_2_fused_1_1) // 8)
                                        v1 = T.axis.spatial(256, j_0 * 32 + (ax0_2_ax1_2_fused_0_1 * 64 + ax0_2_ax1_2_fused_1_1) % 8 * 4 + ax0_2_ax1_2_fused_2_1)
                                        T.reads(B[v0, v1])
                                        T.writes(B_shared[v0, v1])
                                        B_shared[v0, v1] = B[v0, v1]
                        for k_1, i_2, j_2 in T.grid(8, 4, 4):
                            with T.block("C_update"):
                                vi = T.axis.spatial(256, i_0 * 32 + i_1_j_1_fused // 8 * 4 + i_2)
                                vj = T.axis.spatial(256, j_0 * 32 + i_1_j_1_fused % 8 * 4 + j_2)
                                vk = T.axis.reduce(256, k_0 * 8 + k_1)
                                T.reads(C_local[vi, vj], A_shared[vi, vk], B_shared[vk, vj])
                                T.writes(C_local[vi, vj])
                                C_local[vi, vj] = C_local[vi, vj] + A_shared[vi, vk] * B_shared[vk, vj]
                    for ax0_1, ax1_1 in T.grid(4, 4):
                        with T.block("C_local"):
                            v0 = T.axis.spatial(256, i_0 * 32 + i_1_j_1_fused // 8 * 4 + ax0_1)
                            v1 = T.axis.spatial(256, j_0 * 32 + i_1_j_1_fused % 8 * 4 + ax1_1)
                            T.reads(C_local[v0, v1])
                            T.writes(C[v0, v1])
                            C[v0, v1] = C_local[v0, v1]
