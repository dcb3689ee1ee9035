from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def rowsum_then_scale(A: T.Buffer((32, 128), "float32"), S: T.Buffer((32,), "float32"), D: T.Buffer((32, 128), "float32")):
        T.func_attr({"global_symbol": "rowsum_then_scale", "tir.noalias": T.bool(True)})
        S_rf = T.alloc_buffer((8, 32))
        for i in range(32):
            for k_0, k_1 in T.grid(16, 8):
                with T.block("S_rf"):
                    vk_1, vi, vk_0 = T.axis.remap("SSR", [k_1, i, k_0])
                    T.reads(A[vi, vk_0 * 8 + vk_1])
                    T.writes(S_rf[vk_1, vi])
                    with T.init():
                        S_rf[vk_1, vi] = T.float32(0.0)
                    S_rf[vk_1, vi] = S_rf[vk_1, vi] + A[vi, vk_0 * 8 + vk_1]
            for k_1 in range(8):
                with T.block("S"):
                    vk_1, vi = T.axis.remap("RS", [k_1, i])
                    T.reads(S_rf[vk_1, vi])
                    T.writes(S[vi])
                    with T.init():
                        S[vi] = T.float32(0.0)
                    S[vi] = S[vi] + S_rf[vk_1, vi]
            for j in range(128):
                with T.block("D"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.reads(A[vi, vj])
                    T.writes(D[vi, vj])
                    D[vi, vj] = A[vi, vj] * T.float32(0.5)
