# Default rules: 3x3 average pooling, stride 1, padding 1, over 1 x 4 x 16 x 16: the
# window sum per plane (padding computed there, rows vectorized, window unrolled), then
# the division as an elementwise block.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def avgpool(X: T.Buffer((1, 4, 16, 16), "float32"), Y: T.Buffer((1, 4, 16, 16), "float32")):
        T.func_attr({"global_symbol": "avgpool", "tir.noalias": True})
        X_pad = T.alloc_buffer((1, 4, 18, 18), "float32")
        S = T.alloc_buffer((1, 4, 16, 16), "float32")
        for n, c, h, w in T.grid(1, 4, 18, 18):
            with T.block("pad"):
                vn, vc, vh, vw = T.axis.remap("SSSS", [n, c, h, w])
                X_pad[vn, vc, vh, vw] = T.if_then_else(1 <= vh and vh < 17 and 1 <= vw and vw < 17, X[vn, vc, vh - 1, vw - 1], T.float32(0))
        for n, c, h, w, rh, rw in T.grid(1, 4, 16, 16, 3, 3):
            with T.block("sum"):
                vn, vc, vh, vw, vrh, vrw = T.axis.remap("SSSSRR", [n, c, h, w, rh, rw])
                with T.init():
                    S[vn, vc, vh, vw] = T.float32(0)
                S[vn, vc, vh, vw] = S[vn, vc, vh, vw] + X_pad[vn, vc, vh + vrh, vw + vrw]
        for n, c, h, w in T.grid(1, 4, 16, 16):
            with T.block("div"):
                vn, vc, vh, vw = T.axis.remap("SSSS", [n, c, h, w])
                Y[vn, vc, vh, vw] = S[vn, vc, vh, vw] * T.float32(0.11111111)
