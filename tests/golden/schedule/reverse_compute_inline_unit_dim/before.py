# A bias add reading its producer at [0, c, w] (as fusion leaves an NCHW
# conv's epilogue): the leading dim has one value, so the constant index
# names the element the producer's one-valued iter var writes, and the
# consumer's own one-valued iter var becomes that constant in its store.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def scale_bias(A: T.Buffer((1, 8, 16), "float32"), bias: T.Buffer((8,), "float32"),
                   C: T.Buffer((1, 8, 16), "float32")):
        T.func_attr({"global_symbol": "scale_bias", "tir.noalias": True})
        B = T.alloc_buffer((1, 8, 16), "float32")
        for n, c, w in T.grid(1, 8, 16):
            with T.block("B"):
                vn, vc, vw = T.axis.remap("SSS", [n, c, w])
                B[vn, vc, vw] = A[vn, vc, vw] * T.float32(2)
        for n, c, w in T.grid(1, 8, 16):
            with T.block("C"):
                vn, vc, vw = T.axis.remap("SSS", [n, c, w])
                C[vn, vc, vw] = T.max(B[0, vc, vw] + bias[vc], T.float32(0))
