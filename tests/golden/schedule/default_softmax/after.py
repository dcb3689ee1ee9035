from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def softmax(A: T.Buffer((32, 64), "float32"), B: T.Buffer((32, 64), "float32")):
        T.func_attr({"global_symbol": "softmax", "tir.noalias": T.bool(True)})
        A_max = T.alloc_buffer((32,))
        A_exp = T.alloc_buffer((32, 64))
        A_sum = T.alloc_buffer((32,))
        A_max_rf = T.alloc_buffer((32, 8))
        A_sum_rf = T.alloc_buffer((32, 8))
        for i, k_0 in T.grid(32, 8):
            for k_1 in T.vectorized(8):
                with T.block("max_rf"):
                    vk_1, vi, vk_0 = T.axis.remap("SSR", [k_1, i, k_0])
                    T.reads(A[vi, vk_0 * 8 + vk_1])
                    T.writes(A_max_rf[vi, vk_1])
                    with T.init():
                        A_max_rf[vi, vk_1] = T.float32(-3.4028235e+38)
                    A_max_rf[vi, vk_1] = T.max(A_max_rf[vi, vk_1], A[vi, vk_0 * 8 + vk_1])
        for i, k_1 in T.grid(32, 8):
            with T.block("max"):
                vk_1, vi = T.axis.remap("RS", [k_1, i])
                T.reads(A_max_rf[vi, vk_1])
                T.writes(A_max[vi])
                with T.init():
                    A_max[vi] = T.float32(-3.4028235e+38)
                A_max[vi] = T.max(A_max[vi], A_max_rf[vi, vk_1])
        for i, j_0 in T.grid(32, 8):
            for j_1 in T.vectorized(8):
                with T.block("exp"):
                    vi = T.axis.spatial(32, i)
                    vj = T.axis.spatial(64, j_0 * 8 + j_1)
                    T.reads(A[vi, vj], A_max[vi])
                    T.writes(A_exp[vi, vj])
                    A_exp[vi, vj] = T.exp(A[vi, vj] - A_max[vi])
        for i, k_0_1 in T.grid(32, 8):
            for k_1_1 in T.vectorized(8):
                with T.block("sum_rf"):
                    vk_1_1, vi, vk_0_1 = T.axis.remap("SSR", [k_1_1, i, k_0_1])
                    T.reads(A_exp[vi, vk_0_1 * 8 + vk_1_1])
                    T.writes(A_sum_rf[vi, vk_1_1])
                    with T.init():
                        A_sum_rf[vi, vk_1_1] = T.float32(0.0)
                    A_sum_rf[vi, vk_1_1] = A_sum_rf[vi, vk_1_1] + A_exp[vi, vk_0_1 * 8 + vk_1_1]
        for i, k_1_1 in T.grid(32, 8):
            with T.block("sum"):
                vk_1_1, vi = T.axis.remap("RS", [k_1_1, i])
                T.reads(A_sum_rf[vi, vk_1_1])
                T.writes(A_sum[vi])
                with T.init():
                    A_sum[vi] = T.float32(0.0)
                A_sum[vi] = A_sum[vi] + A_sum_rf[vi, vk_1_1]
        for i, j_0_1 in T.grid(32, 8):
            for j_1_1 in T.vectorized(8):
                with T.block("divide"):
                    vi = T.axis.spatial(32, i)
                    vj = T.axis.spatial(64, j_0_1 * 8 + j_1_1)
                    T.reads(A_exp[vi, vj], A_sum[vi])
                    T.writes(B[vi, vj])
                    B[vi, vj] = A_exp[vi, vj] / A_sum[vi]
