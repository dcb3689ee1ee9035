# Default rules: a depthwise 3x3 conv2d over 7 x 7 planes (MobileNetV2's last ones): no
# vector width divides the row, so the tile is a row of 7 scalars, the window unrolled.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def dwconv(X: T.Buffer((1, 8, 7, 7), "float32"), W: T.Buffer((8, 1, 3, 3), "float32"), Y: T.Buffer((1, 8, 7, 7), "float32")):
        T.func_attr({"global_symbol": "dwconv", "tir.noalias": True})
        X_pad = T.alloc_buffer((1, 8, 9, 9), "float32")
        for n, c, h, w in T.grid(1, 8, 9, 9):
            with T.block("pad"):
                vn, vc, vh, vw = T.axis.remap("SSSS", [n, c, h, w])
                X_pad[vn, vc, vh, vw] = T.if_then_else(1 <= vh and vh < 8 and 1 <= vw and vw < 8, X[vn, vc, vh - 1, vw - 1], T.float32(0))
        for n, c, y, x, ry, rx in T.grid(1, 8, 7, 7, 3, 3):
            with T.block("dw"):
                vn, vc, vy, vx, vry, vrx = T.axis.remap("SSSSRR", [n, c, y, x, ry, rx])
                with T.init():
                    Y[vn, vc, vy, vx] = T.float32(0)
                Y[vn, vc, vy, vx] = Y[vn, vc, vy, vx] + X_pad[vn, vc, vy + vry, vx + vrx] * W[vc, 0, vry, vrx]
