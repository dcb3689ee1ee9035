from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def mean(A: T.Buffer((16, 128), "float32"), M: T.Buffer((16,), "float32")):
        T.func_attr({"global_symbol": "mean", "tir.noalias": T.bool(True)})
        S = T.alloc_buffer((16,))
        S_rf = T.alloc_buffer((16, 8))
        for i, k_0 in T.grid(16, 16):
            for k_1 in T.vectorized(8):
                with T.block("sum_rf"):
                    vk_1, vi, vk_0 = T.axis.remap("SSR", [k_1, i, k_0])
                    T.reads(A[vi, vk_0 * 8 + vk_1])
                    T.writes(S_rf[vi, vk_1])
                    with T.init():
                        S_rf[vi, vk_1] = T.float32(0.0)
                    S_rf[vi, vk_1] = S_rf[vi, vk_1] + A[vi, vk_0 * 8 + vk_1]
        for i, k_1 in T.grid(16, 8):
            with T.block("sum"):
                vk_1, vi = T.axis.remap("RS", [k_1, i])
                T.reads(S_rf[vi, vk_1])
                T.writes(S[vi])
                with T.init():
                    S[vi] = T.float32(0.0)
                S[vi] = S[vi] + S_rf[vi, vk_1]
        for i_0 in range(2):
            for i_1 in T.vectorized(8):
                with T.block("mean"):
                    vi = T.axis.spatial(16, i_0 * 8 + i_1)
                    T.reads(S[vi])
                    T.writes(M[vi])
                    M[vi] = S[vi] * T.float32(0.0078125)
