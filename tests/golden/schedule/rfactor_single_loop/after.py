from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def rowsum(A: T.Buffer((32, 128), "float32"), B: T.Buffer((32,), "float32")):
        T.func_attr({"global_symbol": "rowsum", "tir.noalias": T.bool(True)})
        B_rf = T.alloc_buffer((128, 32))
        for i, k in T.grid(32, 128):
            with T.block("B_rf"):
                vk, vi = T.axis.remap("SS", [k, i])
                T.reads(A[vi, vk])
                T.writes(B_rf[vk, vi])
                B_rf[vk, vi] = A[vi, vk]
        for i, k in T.grid(32, 128):
            with T.block("B"):
                vk, vi = T.axis.remap("RS", [k, i])
                T.reads(B_rf[vk, vi])
                T.writes(B[vi])
                with T.init():
                    B[vi] = T.float32(0.0)
                B[vi] = B[vi] + B_rf[vk, vi]
