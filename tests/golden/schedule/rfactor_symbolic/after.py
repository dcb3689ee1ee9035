from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def sym(a: T.handle, b: T.handle):
        n = T.int32()
        A = T.match_buffer(a, (n, 64))
        B = T.match_buffer(b, (n,))
        T.func_attr({"global_symbol": "sym", "tir.noalias": T.bool(True)})
        B_rf = T.alloc_buffer((4, n))
        for i, k_0, k_1 in T.grid(n, 4, 16):
            with T.block("B_rf"):
                vk_0, vi, vk_1 = T.axis.remap("SSR", [k_0, i, k_1])
                T.reads(A[vi, vk_0 * 16 + vk_1])
                T.writes(B_rf[vk_0, vi])
                with T.init():
                    B_rf[vk_0, vi] = T.float32(0.0)
                B_rf[vk_0, vi] = B_rf[vk_0, vi] + A[vi, vk_0 * 16 + vk_1]
        for i, k_0 in T.grid(n, 4):
            with T.block("B"):
                vk_0, vi = T.axis.remap("RS", [k_0, i])
                T.reads(B_rf[vk_0, vi])
                T.writes(B[vi])
                with T.init():
                    B[vi] = T.float32(0.0)
                B[vi] = B[vi] + B_rf[vk_0, vi]
