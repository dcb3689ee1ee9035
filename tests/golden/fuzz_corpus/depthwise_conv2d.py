# Fuzzer corpus: a 3x3 depthwise convolution (one filter per channel) with
# padding 1, followed by ReLU.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def depthwise_conv2d(X: T.Buffer((1, 4, 8, 8), "float32"), W: T.Buffer((4, 3, 3), "float32"),
                         Y: T.Buffer((1, 4, 8, 8), "float32")):
        T.func_attr({"global_symbol": "depthwise_conv2d", "tir.noalias": True})
        X_pad = T.alloc_buffer((1, 4, 10, 10), "float32")
        D = T.alloc_buffer((1, 4, 8, 8), "float32")
        for n, c, h, w in T.grid(1, 4, 10, 10):
            with T.block("pad"):
                vn, vc, vh, vw = T.axis.remap("SSSS", [n, c, h, w])
                X_pad[vn, vc, vh, vw] = T.if_then_else(1 <= vh and vh < 9 and 1 <= vw and vw < 9, X[vn, vc, vh - 1, vw - 1], T.float32(0))
        for n, c, y, x, ry, rx in T.grid(1, 4, 8, 8, 3, 3):
            with T.block("dw"):
                vn, vc, vy, vx, vry, vrx = T.axis.remap("SSSSRR", [n, c, y, x, ry, rx])
                with T.init():
                    D[vn, vc, vy, vx] = T.float32(0)
                D[vn, vc, vy, vx] = D[vn, vc, vy, vx] + X_pad[vn, vc, vy + vry, vx + vrx] * W[vc, vry, vrx]
        for n, c, y, x in T.grid(1, 4, 8, 8):
            with T.block("relu"):
                vn, vc, vy, vx = T.axis.remap("SSSS", [n, c, y, x])
                Y[vn, vc, vy, vx] = T.max(D[vn, vc, vy, vx], T.float32(0))
