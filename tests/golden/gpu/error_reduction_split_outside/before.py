# Row sums whose reduction is split [rest, threads]: the serial part runs
# outside the thread loop, so each of its iterations would be a separate
# cross-thread reduction onto the same output.
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
