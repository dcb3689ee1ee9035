from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def mm_relu(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
        T.func_attr({"global_symbol": "mm_relu", "tir.noalias": T.bool(True)})
        Y = T.alloc_buffer((128, 128))
        Y_rf = T.alloc_buffer((128, 128, 8))
        for i, j, k_0, k_1 in T.grid(128, 128, 8, 16):
            with T.block("Y_rf"):
                vk_0, vi, vj, vk_1 = T.axis.remap("SSSR", [k_0, i, j, k_1])
                T.reads(A[vi, vk_0 * 16 + vk_1], B[vk_0 * 16 + vk_1, vj])
                T.writes(Y_rf[vi, vj, vk_0])
                with T.init():
                    Y_rf[vi, vj, vk_0] = T.float32(0.0)
                Y_rf[vi, vj, vk_0] = Y_rf[vi, vj, vk_0] + A[vi, vk_0 * 16 + vk_1] * B[vk_0 * 16 + vk_1, vj]
        for i, j, k_0 in T.grid(128, 128, 8):
            with T.block("Y"):
                vk_0, vi, vj = T.axis.remap("RSS", [k_0, i, j])
                T.reads(Y_rf[vi, vj, vk_0])
                T.writes(Y[vi, vj])
                with T.init():
                    Y[vi, vj] = T.float32(0.0)
                Y[vi, vj] = Y[vi, vj] + Y_rf[vi, vj, vk_0]
        for i, j in T.grid(128, 128):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(Y[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = T.max(Y[vi, vj], T.float32(0.0))
