from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def rowsum(A: T.Buffer((64, 256), "float32"), B: T.Buffer((64,), "float32")):
        T.func_attr({"global_symbol": "rowsum", "tir.noalias": T.bool(True)})
        for i_fused in T.thread_binding(64, thread="blockIdx.x"):
            for k_fused_0 in T.thread_binding(256, thread="threadIdx.x"):
                for k_fused_1 in range(1):
                    with T.block("B"):
                        vi = T.axis.spatial(64, i_fused)
                        vk = T.axis.reduce(256, k_fused_0 + k_fused_1)
                        T.reads(A[vi, vk])
                        T.writes(B[vi])
                        with T.init():
                            B[vi] = T.float32(0.0)
                        B[vi] = B[vi] + A[vi, vk]
