# Predicated blocks (T.where) as splitting by a factor that does not divide
# the extent leaves them: an elementwise tail and a reduction whose split
# reduce axis overshoots.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def tail_axpy(A: T.Buffer((30,), "float32"), B: T.Buffer((30,), "float32")):
        T.func_attr({"global_symbol": "tail_axpy", "tir.noalias": True})
        for i_0, i_1 in T.grid(8, 4):
            with T.block("B"):
                vi = T.axis.spatial(30, i_0 * 4 + i_1)
                T.where(i_0 * 4 + i_1 < 30)
                B[vi] = A[vi] * T.float32(2) + T.float32(1)

    @T.prim_func
    def split_rowsum(A: T.Buffer((5, 20), "float32"), S: T.Buffer((5,), "float32")):
        T.func_attr({"global_symbol": "split_rowsum", "tir.noalias": True})
        for i, k_0, k_1 in T.grid(5, 3, 8):
            with T.block("S"):
                vi = T.axis.spatial(5, i)
                vk = T.axis.reduce(20, k_0 * 8 + k_1)
                T.where(k_0 * 8 + k_1 < 20)
                with T.init():
                    S[vi] = T.float32(0)
                S[vi] = S[vi] + A[vi, vk]
