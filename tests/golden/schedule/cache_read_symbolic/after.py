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
        A_shared = T.alloc_buffer((n, 64), scope="shared")
        for ax0, ax1 in T.grid(n, 64):
            with T.block("A_shared"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(A[v0, v1])
                T.writes(A_shared[v0, v1])
                A_shared[v0, v1] = A[v0, v1]
        for i, k in T.grid(n, 64):
            with T.block("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(A_shared[vi, vk])
                T.writes(B[vi])
                with T.init():
                    B[vi] = T.float32(0.0)
                B[vi] = B[vi] + A_shared[vi, vk]
