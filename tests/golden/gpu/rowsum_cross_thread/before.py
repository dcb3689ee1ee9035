# Row sums with the reduction split [threads, rest]: 100 threads (not a power
# of two, so the tree's first step has idle threads), each adding a stretch
# of 3 elements; 100 x 3 > 256, so the last stretch is guarded.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def rowsum(A: T.Buffer((64, 256), "float32"), B: T.Buffer((64,), "float32")):
        T.func_attr({"global_symbol": "rowsum", "tir.noalias": True})
        for i, k in T.grid(64, 256):
            with T.block("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] + A[vi, vk]
