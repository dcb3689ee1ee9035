from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def pool(X: T.Buffer((2, 4, 32, 32), "float32"), Y: T.Buffer((2, 4, 16, 16), "float32")):
        T.func_attr({"global_symbol": "pool", "tir.noalias": T.bool(True)})
        X_pad = T.alloc_buffer((2, 4, 34, 34))
        for n_c_fused in T.parallel(8):
            for ax0, ax1 in T.grid(33, 33):
                with T.block("pad"):
                    vn = T.axis.spatial(2, n_c_fused // 4)
                    vc = T.axis.spatial(4, n_c_fused % 4)
                    vh = T.axis.spatial(34, ax0)
                    vw = T.axis.spatial(34, ax1)
                    T.reads(X[vn, vc, vh - 1, vw - 1])
                    T.writes(X_pad[vn, vc, vh, vw])
                    X_pad[vn, vc, vh, vw] = T.if_then_else(1 <= vh and vh < 33 and 1 <= vw and vw < 33, X[vn, vc, vh - 1, vw - 1], T.float32(-3.4028235e+38))
            for h, w_0 in T.grid(16, 2):
                for w_1_init in T.vectorized(8):
                    with T.block("pool_init"):
                        vn = T.axis.spatial(2, n_c_fused // 4)
                        vc = T.axis.spatial(4, n_c_fused % 4)
                        vh = T.axis.spatial(16, h)
                        vw = T.axis.spatial(16, w_0 * 8 + w_1_init)
                        T.reads()
                        T.writes(Y[vn, vc, vh, vw])
                        Y[vn, vc, vh, vw] = T.float32(-3.4028235e+38)
                for rh in T.unroll(3):
                    for rw in T.unroll(3):
                        for w_1 in T.vectorized(8):
                            with T.block("pool_update"):
                                vn = T.axis.spatial(2, n_c_fused // 4)
                                vc = T.axis.spatial(4, n_c_fused % 4)
                                vh = T.axis.spatial(16, h)
                                vw = T.axis.spatial(16, w_0 * 8 + w_1)
                                vrh = T.axis.reduce(3, rh)
                                vrw = T.axis.reduce(3, rw)
                                T.reads(Y[vn, vc, vh, vw], X_pad[vn, vc, vh * 2 + vrh, vw * 2 + vrw])
                                T.writes(Y[vn, vc, vh, vw])
                                Y[vn, vc, vh, vw] = T.max(Y[vn, vc, vh, vw], X_pad[vn, vc, vh * 2 + vrh, vw * 2 + vrw])
