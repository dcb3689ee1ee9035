# Reduction loop k0 also holds block D, after the inner reduction loop k1.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def rf_not_perfect(A: T.Buffer((32, 128), "float32"), S: T.Buffer((32,), "float32"), D: T.Buffer((32, 128), "float32")):
        T.func_attr({"global_symbol": "rf_not_perfect", "tir.noalias": True})
        for i, k0 in T.grid(32, 16):
            for k1 in range(8):
                with T.block("S"):
                    vi = T.axis.spatial(32, i)
                    vk = T.axis.reduce(128, k0 * 8 + k1)
                    with T.init():
                        S[vi] = T.float32(0)
                    S[vi] = S[vi] + A[vi, vk]
            for j in range(8):
                with T.block("D"):
                    vi = T.axis.spatial(32, i)
                    vj = T.axis.spatial(128, k0 * 8 + j)
                    D[vi, vj] = A[vi, vj] * T.float32(0.5)
