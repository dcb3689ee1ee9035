# The consumer reads its producer at a constant index of a dim with two
# values: only the producer's instances at 0 are read, so inlining would
# drop the others' order; refused.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def scale_bias(A: T.Buffer((2, 8, 16), "float32"), bias: T.Buffer((8,), "float32"),
                   C: T.Buffer((1, 8, 16), "float32")):
        T.func_attr({"global_symbol": "scale_bias", "tir.noalias": True})
        B = T.alloc_buffer((2, 8, 16), "float32")
        for n, c, w in T.grid(2, 8, 16):
            with T.block("B"):
                vn, vc, vw = T.axis.remap("SSS", [n, c, w])
                B[vn, vc, vw] = A[vn, vc, vw] * T.float32(2)
        for n, c, w in T.grid(1, 8, 16):
            with T.block("C"):
                vn, vc, vw = T.axis.remap("SSS", [n, c, w])
                C[vn, vc, vw] = B[0, vc, vw] + bias[vc]
