from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def add3(A: T.Buffer((4, 8, 16), "float32"), B: T.Buffer((4, 8, 16), "float32")):
        T.func_attr({"global_symbol": "add3", "tir.noalias": T.bool(True)})
        for i_j_k_fused in range(512):
            with T.block("B"):
                vi = T.axis.spatial(4, i_j_k_fused // 128)
                vj = T.axis.spatial(8, i_j_k_fused // 16 % 8)
                vk = T.axis.spatial(16, i_j_k_fused % 16)
                T.reads(A[vi, vj, vk])
                T.writes(B[vi, vj, vk])
                B[vi, vj, vk] = A[vi, vj, vk] + T.float32(1.0)
