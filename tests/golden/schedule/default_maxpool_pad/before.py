# Default rules: 3x3 max pooling, stride 2, padding 1 (ResNet's), over 2 x 4 x 32 x 32:
# the padding block is computed per plane, rows of the output vectorized.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def pool(X: T.Buffer((2, 4, 32, 32), "float32"), Y: T.Buffer((2, 4, 16, 16), "float32")):
        T.func_attr({"global_symbol": "pool", "tir.noalias": True})
        X_pad = T.alloc_buffer((2, 4, 34, 34), "float32")
        for n, c, h, w in T.grid(2, 4, 34, 34):
            with T.block("pad"):
                vn, vc, vh, vw = T.axis.remap("SSSS", [n, c, h, w])
                X_pad[vn, vc, vh, vw] = T.if_then_else(1 <= vh and vh < 33 and 1 <= vw and vw < 33, X[vn, vc, vh - 1, vw - 1], T.min_value("float32"))
        for n, c, h, w, rh, rw in T.grid(2, 4, 16, 16, 3, 3):
            with T.block("pool"):
                vn, vc, vh, vw, vrh, vrw = T.axis.remap("SSSSRR", [n, c, h, w, rh, rw])
                with T.init():
                    Y[vn, vc, vh, vw] = T.min_value("float32")
                Y[vn, vc, vh, vw] = T.max(Y[vn, vc, vh, vw], X_pad[vn, vc, vh * 2 + vrh, vw * 2 + vrw])
