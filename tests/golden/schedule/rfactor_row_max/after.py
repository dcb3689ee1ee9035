from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def row_max(A: T.Buffer((64, 256), "float32"), M: T.Buffer((64,), "float32")):
        T.func_attr({"global_symbol": "row_max", "tir.noalias": T.bool(True)})
        M_rf = T.alloc_buffer((64, 16))
        for i, k_0, k_1 in T.grid(64, 16, 16):
            with T.block("M_rf"):
                vk_1, vi, vk_0 = T.axis.remap("SSR", [k_1, i, k_0])
                T.reads(A[vi, vk_0 * 16 + vk_1])
                T.writes(M_rf[vi, vk_1])
                with T.init():
                    M_rf[vi, vk_1] = T.float32(-3.4028235e+38)
                M_rf[vi, vk_1] = T.max(M_rf[vi, vk_1], A[vi, vk_0 * 16 + vk_1])
        for i, k_1 in T.grid(64, 16):
            with T.block("M"):
                vk_1, vi = T.axis.remap("RS", [k_1, i])
                T.reads(M_rf[vi, vk_1])
                T.writes(M[vi])
                with T.init():
                    M[vi] = T.float32(-3.4028235e+38)
                M[vi] = T.max(M[vi], M_rf[vi, vk_1])
