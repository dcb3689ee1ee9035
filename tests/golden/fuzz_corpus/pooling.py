# Fuzzer corpus: 2x2 max pooling with stride 2 (a max reduction started at
# the lowest float32), then 2x2 average pooling of the same input.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def pooling(X: T.Buffer((1, 4, 8, 8), "float32"), P: T.Buffer((1, 4, 4, 4), "float32"),
                Q: T.Buffer((1, 4, 4, 4), "float32")):
        T.func_attr({"global_symbol": "pooling", "tir.noalias": True})
        S = T.alloc_buffer((1, 4, 4, 4), "float32")
        for n, c, y, x, ry, rx in T.grid(1, 4, 4, 4, 2, 2):
            with T.block("max_pool"):
                vn, vc, vy, vx, vry, vrx = T.axis.remap("SSSSRR", [n, c, y, x, ry, rx])
                with T.init():
                    P[vn, vc, vy, vx] = T.min_value("float32")
                P[vn, vc, vy, vx] = T.max(P[vn, vc, vy, vx], X[vn, vc, vy * 2 + vry, vx * 2 + vrx])
        for n, c, y, x, ry, rx in T.grid(1, 4, 4, 4, 2, 2):
            with T.block("sum_pool"):
                vn, vc, vy, vx, vry, vrx = T.axis.remap("SSSSRR", [n, c, y, x, ry, rx])
                with T.init():
                    S[vn, vc, vy, vx] = T.float32(0)
                S[vn, vc, vy, vx] = S[vn, vc, vy, vx] + X[vn, vc, vy * 2 + vry, vx * 2 + vrx]
        for n, c, y, x in T.grid(1, 4, 4, 4):
            with T.block("avg_pool"):
                vn, vc, vy, vx = T.axis.remap("SSSS", [n, c, y, x])
                Q[vn, vc, vy, vx] = S[vn, vc, vy, vx] * T.float32(0.25)
