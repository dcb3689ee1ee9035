# Default rules: the mean of each row of 16 x 128 (sum along the innermost
# axis, then a scale).
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def mean(A: T.Buffer((16, 128), "float32"), M: T.Buffer((16,), "float32")):
        T.func_attr({"global_symbol": "mean", "tir.noalias": True})
        S = T.alloc_buffer((16,), "float32")
        for i, k in T.grid(16, 128):
            with T.block("sum"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    S[vi] = T.float32(0)
                S[vi] = S[vi] + A[vi, vk]
        for i in range(16):
            with T.block("mean"):
                vi = T.axis.spatial(16, i)
                M[vi] = S[vi] * T.float32(0.0078125)
