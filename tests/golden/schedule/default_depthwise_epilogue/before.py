# Default rules: a depthwise 3x3 conv2d, stride 2, padding 1, over 16 channels, with its
# bias and clip (ReLU6) as legalization and fusion leave them (the bias read with a
# literal 0 for the batch): per plane the padding, a tile of rows x vectors along the
# output row (its input read with stride 2), the window unrolled, then the epilogue.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def dwconv(X: T.Buffer((1, 16, 32, 32), "float32"), W: T.Buffer((16, 1, 3, 3), "float32"), B: T.Buffer((16, 1, 1), "float32"), Y: T.Buffer((1, 16, 16, 16), "float32")):
        T.func_attr({"global_symbol": "dwconv", "tir.noalias": True})
        X_pad = T.alloc_buffer((1, 16, 34, 34), "float32")
        C = T.alloc_buffer((1, 16, 16, 16), "float32")
        for n, c, h, w in T.grid(1, 16, 34, 34):
            with T.block("pad"):
                vn, vc, vh, vw = T.axis.remap("SSSS", [n, c, h, w])
                X_pad[vn, vc, vh, vw] = T.if_then_else(1 <= vh and vh < 33 and 1 <= vw and vw < 33, X[vn, vc, vh - 1, vw - 1], T.float32(0))
        for n, c, y, x, rc, ry, rx in T.grid(1, 16, 16, 16, 1, 3, 3):
            with T.block("dw"):
                vn, vc, vy, vx, vrc, vry, vrx = T.axis.remap("SSSSRRR", [n, c, y, x, rc, ry, rx])
                with T.init():
                    C[vn, vc, vy, vx] = T.float32(0)
                C[vn, vc, vy, vx] = C[vn, vc, vy, vx] + X_pad[vn, vc + vrc, vy * 2 + vry, vx * 2 + vrx] * W[vc, vrc, vry, vrx]
        for n, c, y, x in T.grid(1, 16, 16, 16):
            with T.block("bias_clip"):
                vn, vc, vy, vx = T.axis.remap("SSSS", [n, c, y, x])
                Y[vn, vc, vy, vx] = T.min(T.max(C[0, vc, vy, vx] + B[vc, 0, 0], T.float32(0)), T.float32(6))
