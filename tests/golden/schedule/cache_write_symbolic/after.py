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
        B_local = T.alloc_buffer((n,), scope="local")
        for i, k in T.grid(n, 64):
            with T.block("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(A[vi, vk])
                T.writes(B_local[vi])
                with T.init():
                    B_local[vi] = T.float32(0.0)
                B_local[vi] = B_local[vi] + A[vi, vk]
        for ax0 in range(n):
            with T.block("B_local"):
                v0 = T.axis.remap("S", [ax0])
                T.reads(B_local[v0])
                T.writes(B[v0])
                B[v0] = B_local[v0]
