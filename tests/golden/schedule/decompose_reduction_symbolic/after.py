from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def sym(a: T.handle, b: T.handle):
        n = T.int32()
        A = T.match_buffer(a, (n, 64))
        B = T.match_buffer(b, (n,))
        T.func_attr({"global_symbol": "sym", "tir.noalias": T.bool(True)})
        for i_init in range(n):
            with T.block("B_init"):
                vi = T.axis.remap("S", [i_init])
                T.reads()
                T.writes(B[vi])
                B[vi] = T.float32(0.0)
        for i, k in T.grid(n, 64):
            with T.block("B_update"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(B[vi], A[vi, vk])
                T.writes(B[vi])
                B[vi] = B[vi] + A[vi, vk]
