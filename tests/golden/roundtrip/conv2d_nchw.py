# 3x3 convolution in NCHW layout with padding 1: a pad block that copies the
# input into a zero-bordered buffer (guarded load), then the 7-deep
# reduction over channels and the kernel window.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def conv2d_nchw(X: T.Buffer((1, 3, 32, 32), "float32"), W: T.Buffer((16, 3, 3, 3), "float32"),
                    Y: T.Buffer((1, 16, 32, 32), "float32")):
        T.func_attr({"global_symbol": "conv2d_nchw", "tir.noalias": True})
        X_pad = T.alloc_buffer((1, 3, 34, 34), "float32")
        for n, c, h, w in T.grid(1, 3, 34, 34):
            with T.block("pad"):
                vn, vc, vh, vw = T.axis.remap("SSSS", [n, c, h, w])
                T.reads(X[vn, vc, vh - 1, vw - 1])
                T.writes(X_pad[vn, vc, vh, vw])
                X_pad[vn, vc, vh, vw] = T.if_then_else(1 <= vh and vh < 33 and 1 <= vw and vw < 33, X[vn, vc, vh - 1, vw - 1], T.float32(0))
        for n, f, y, x, rc, ry, rx in T.grid(1, 16, 32, 32, 3, 3, 3):
            with T.block("conv"):
                vn, vf, vy, vx, vrc, vry, vrx = T.axis.remap("SSSSRRR", [n, f, y, x, rc, ry, rx])
                T.reads(X_pad[vn, vrc, vy + vry, vx + vrx], W[vf, vrc, vry, vrx])
                T.writes(Y[vn, vf, vy, vx])
                with T.init():
                    Y[vn, vf, vy, vx] = T.float32(0)
                Y[vn, vf, vy, vx] = Y[vn, vf, vy, vx] + X_pad[vn, vrc, vy + vry, vx + vrx] * W[vf, vrc, vry, vrx]
