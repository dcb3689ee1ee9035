# A 3x3 convolution (NCHW, 16 -> 32 channels, 16x16 outputs) with its
# zero padding read through a condition, as legalization and fusion leave
# it, without a schedule: the default GPU schedule tiles the output rows and
# columns (8x8 threads, 2x2 outputs each), takes a block per output channel
# and stages the input and the weights in shared memory.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def conv(X: T.Buffer((1, 16, 16, 16), "float32"), W: T.Buffer((32, 16, 3, 3), "float32"), Y: T.Buffer((1, 32, 16, 16), "float32")):
        T.func_attr({"global_symbol": "conv", "tir.noalias": True})
        for n, co, oh, ow, ci, kh, kw in T.grid(1, 32, 16, 16, 16, 3, 3):
            with T.block("conv"):
                vn, vco, voh, vow, vci, vkh, vkw = T.axis.remap("SSSSRRR", [n, co, oh, ow, ci, kh, kw])
                with T.init():
                    Y[vn, vco, voh, vow] = T.float32(0)
                Y[vn, vco, voh, vow] = Y[vn, vco, voh, vow] + T.if_then_else(1 <= voh + vkh and voh + vkh < 17 and 1 <= vow + vkw and vow + vkw < 17, X[vn, vci, voh + vkh - 1, vow + vkw - 1], T.float32(0)) * W[vco, vci, vkh, vkw]
