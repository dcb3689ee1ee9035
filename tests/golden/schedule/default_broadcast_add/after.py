from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def badd(A: T.Buffer((32, 4, 40), "float32"), b: T.Buffer((40,), "float32"), C: T.Buffer((32, 4, 40), "float32")):
        T.func_attr({"global_symbol": "badd", "tir.noalias": T.bool(True)})
        for i_k_fused in T.parallel(128):
            for j_0 in range(5):
                for j_1 in T.vectorized(8):
                    with T.block("C"):
                        vi = T.axis.spatial(32, i_k_fused // 4)
                        vk = T.axis.spatial(4, i_k_fused % 4)
                        vj = T.axis.spatial(40, j_0 * 8 + j_1)
                        T.reads(A[vi, vk, vj], b[vj])
                        T.writes(C[vi, vk, vj])
                        C[vi, vk, vj] = A[vi, vk, vj] + b[vj]
