from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def scale_bias(A: T.Buffer((1, 8, 16), "float32"), bias: T.Buffer((8,), "float32"), C: T.Buffer((1, 8, 16), "float32")):
        T.func_attr({"global_symbol": "scale_bias", "tir.noalias": T.bool(True)})
        for n, c, w in T.grid(1, 8, 16):
            with T.block("B"):
                vn, vc, vw = T.axis.remap("SSS", [n, c, w])
                T.reads(A[0, vc, vw], bias[vc])
                T.writes(C[0, vc, vw])
                C[0, vc, vw] = T.max(A[0, vc, vw] * T.float32(2.0) + bias[vc], T.float32(0.0))
