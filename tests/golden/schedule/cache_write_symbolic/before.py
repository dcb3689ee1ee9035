# A row-wise sum of an n x 64 input, n symbolic.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def sym(a: T.handle, b: T.handle):
        T.func_attr({"global_symbol": "sym", "tir.noalias": True})
        n = T.int32()
        A = T.match_buffer(a, (n, 64))
        B = T.match_buffer(b, (n,))
        for i, k in T.grid(n, 64):
            with T.block("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] + A[vi, vk]
