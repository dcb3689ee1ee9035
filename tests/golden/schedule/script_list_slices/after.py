from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
        for k_0, k_1, j, i in T.grid(8, 8, 64, 64):
            with T.block("C"):
                vi = T.axis.spatial(64, i)
                vj = T.axis.spatial(64, j)
                vk = T.axis.reduce(64, k_0 * 8 + k_1)
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
