from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def softmax(A: T.Buffer((64, 256), "float32"), B: T.Buffer((64, 256), "float32")):
        T.func_attr({"global_symbol": "softmax", "tir.noalias": T.bool(True)})
        M = T.alloc_buffer((64,))
        E = T.alloc_buffer((64, 256))
        S = T.alloc_buffer((64,))
        for i_fused in T.thread_binding(64, thread="blockIdx.x"):
            for k_fused_0 in T.thread_binding(256, thread="threadIdx.x"):
                for k_fused_1 in range(1):
                    with T.block("maxelem"):
                        vi = T.axis.spatial(64, i_fused)
                        vk = T.axis.reduce(256, k_fused_0 + k_fused_1)
                        T.reads(A[vi, vk])
                        T.writes(M[vi])
                        with T.init():
                            M[vi] = T.float32(-3.4028235e+38)
                        M[vi] = T.max(M[vi], A[vi, vk])
        for i_k_fused_0 in T.thread_binding(64, thread="blockIdx.x"):
            for i_k_fused_1 in T.thread_binding(256, thread="threadIdx.x"):
                with T.block("exp"):
                    vi, vk = T.axis.remap("SS", [i_k_fused_0, i_k_fused_1])
                    T.reads(A[vi, vk], M[vi])
                    T.writes(E[vi, vk])
                    E[vi, vk] = T.exp(A[vi, vk] - M[vi])
        for i_fused_1 in T.thread_binding(64, thread="blockIdx.x"):
            for k_fused_0_1 in T.thread_binding(256, thread="threadIdx.x"):
                for k_fused_1_1 in range(1):
                    with T.block("expsum"):
                        vi = T.axis.spatial(64, i_fused_1)
                        vk = T.axis.reduce(256, k_fused_0_1 + k_fused_1_1)
                        T.reads(E[vi, vk])
                        T.writes(S[vi])
                        with T.init():
                            S[vi] = T.float32(0.0)
                        S[vi] = S[vi] + E[vi, vk]
        for i_k_fused_0_1 in T.thread_binding(64, thread="blockIdx.x"):
            for i_k_fused_1_1 in T.thread_binding(256, thread="threadIdx.x"):
                with T.block("norm"):
                    vi, vk = T.axis.remap("SS", [i_k_fused_0_1, i_k_fused_1_1])
                    T.reads(E[vi, vk], S[vi])
                    T.writes(B[vi, vk])
                    B[vi, vk] = E[vi, vk] / S[vi]
