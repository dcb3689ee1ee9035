# Expected: S gone; the matmul reads A[vn, vi, vk] * 0.5 directly.
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def scaled_bmm(A: T.Buffer((16, 128, 128), "float32"), B: T.Buffer((16, 128, 128), "float32"), C: T.Buffer((16, 128, 128), "float32")):
        T.func_attr({"global_symbol": "scaled_bmm", "tir.noalias": T.bool(True)})
        for n, i, j, k in T.grid(16, 128, 128, 128):
            with T.block("C"):
                vn, vi, vj, vk = T.axis.remap("SSSR", [n, i, j, k])
                T.reads(A[vn, vi, vk], B[vn, vk, vj])
                T.writes(C[vn, vi, vj])
                with T.init():
                    C[vn, vi, vj] = T.float32(0.0)
                C[vn, vi, vj] = C[vn, vi, vj] + A[vn, vi, vk] * T.float32(0.5) * B[vn, vk, vj]
