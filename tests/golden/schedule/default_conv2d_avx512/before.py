# Default rules: NCHW conv2d 3 -> 12 channels, 3x3 kernel, stride 2, padding 1
# (the pad block is injective; the conv is tiled over out channels x width).
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def conv2d(X: T.Buffer((1, 3, 32, 32), "float32"), W: T.Buffer((12, 3, 3, 3), "float32"), Y: T.Buffer((1, 12, 16, 16), "float32")):
        T.func_attr({"global_symbol": "conv2d", "tir.noalias": True})
        X_pad = T.alloc_buffer((1, 3, 34, 34), "float32")
        for n, c, h, w in T.grid(1, 3, 34, 34):
            with T.block("pad"):
                vn, vc, vh, vw = T.axis.remap("SSSS", [n, c, h, w])
                X_pad[vn, vc, vh, vw] = T.if_then_else(1 <= vh and vh < 33 and 1 <= vw and vw < 33, X[vn, vc, vh - 1, vw - 1], T.float32(0))
        for n, f, y, x, rc, ry, rx in T.grid(1, 12, 16, 16, 3, 3, 3):
            with T.block("conv"):
                vn, vf, vy, vx, vrc, vry, vrx = T.axis.remap("SSSSRRR", [n, f, y, x, rc, ry, rx])
                with T.init():
                    Y[vn, vf, vy, vx] = T.float32(0)
                Y[vn, vf, vy, vx] = Y[vn, vf, vy, vx] + X_pad[vn, vrc, vy * 2 + vry, vx * 2 + vrx] * W[vf, vrc, vry, vrx]
