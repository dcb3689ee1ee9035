from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def avgpool(X: T.Buffer((1, 4, 16, 16), "float32"), Y: T.Buffer((1, 4, 16, 16), "float32")):
        T.func_attr({"global_symbol": "avgpool", "tir.noalias": T.bool(True)})
        X_pad = T.alloc_buffer((1, 4, 18, 18))
        S = T.alloc_buffer((1, 4, 16, 16))
        for n_c_fused in T.parallel(4):
            for ax0, ax1 in T.grid(18, 18):
                with T.block("pad"):
                    vn = T.axis.spatial(1, 0)
                    vc = T.axis.spatial(4, n_c_fused)
                    vh = T.axis.spatial(18, ax0)
                    vw = T.axis.spatial(18, ax1)
                    T.reads(X[vn, vc, vh - 1, vw - 1])
                    T.writes(X_pad[vn, vc, vh, vw])
                    X_pad[vn, vc, vh, vw] = T.if_then_else(1 <= vh and vh < 17 and 1 <= vw and vw < 17, X[vn, vc, vh - 1, vw - 1], T.float32(0.0))
            for h, w_0 in T.grid(16, 1):
                for w_1_init in T.vectorized(16):
                    with T.block("sum_init"):
                        vn = T.axis.spatial(1, 0)
                        vc = T.axis.spatial(4, n_c_fused)
                        vh = T.axis.spatial(16, h)
                        vw = T.axis.spatial(16, w_0 * 16 + w_1_init)
                        T.reads()
                        T.writes(S[vn, vc, vh, vw])
                        S[vn, vc, vh, vw] = T.float32(0.0)
                for rh in T.unroll(3):
                    for rw in T.unroll(3):
                        for w_1 in T.vectorized(16):
                            with T.block("sum_update"):
                                vn = T.axis.spatial(1, 0)
                                vc = T.axis.spatial(4, n_c_fused)
                                vh = T.axis.spatial(16, h)
                                vw = T.axis.spatial(16, w_0 * 16 + w_1)
                                vrh = T.axis.reduce(3, rh)
                                vrw = T.axis.reduce(3, rw)
                                T.reads(S[vn, vc, vh, vw], X_pad[vn, vc, vh + vrh, vw + vrw])
                                T.writes(S[vn, vc, vh, vw])
                                S[vn, vc, vh, vw] = S[vn, vc, vh, vw] + X_pad[vn, vc, vh + vrh, vw + vrw]
        for n, c, h, w_0_1 in T.grid(1, 4, 16, 1):
            for w_1_1 in T.vectorized(16):
                with T.block("div"):
                    vn = T.axis.spatial(1, n)
                    vc = T.axis.spatial(4, c)
                    vh = T.axis.spatial(16, h)
                    vw = T.axis.spatial(16, w_0_1 * 16 + w_1_1)
                    T.reads(S[vn, vc, vh, vw])
                    T.writes(Y[vn, vc, vh, vw])
                    Y[vn, vc, vh, vw] = S[vn, vc, vh, vw] * T.float32(0.11111111)
