# Default rules: 2x2 max pooling, stride 2, over 2 x 4 x 32 x 32.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def pool(X: T.Buffer((2, 4, 32, 32), "float32"), Y: T.Buffer((2, 4, 16, 16), "float32")):
        T.func_attr({"global_symbol": "pool", "tir.noalias": True})
        for n, c, h, w, rh, rw in T.grid(2, 4, 16, 16, 2, 2):
            with T.block("pool"):
                vn, vc, vh, vw, vrh, vrw = T.axis.remap("SSSSRR", [n, c, h, w, rh, rw])
                with T.init():
                    Y[vn, vc, vh, vw] = T.min_value("float32")
                Y[vn, vc, vh, vw] = T.max(Y[vn, vc, vh, vw], X[vn, vc, vh * 2 + vrh, vw * 2 + vrw])
