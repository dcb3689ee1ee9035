from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def dwconv(X: T.Buffer((1, 8, 16, 16), "float32"), W: T.Buffer((8, 1, 3, 3), "float32"), Y: T.Buffer((1, 8, 16, 16), "float32")):
        T.func_attr({"global_symbol": "dwconv", "tir.noalias": T.bool(True)})
        X_pad = T.alloc_buffer((1, 8, 18, 18))
        Y_local = T.alloc_buffer((1, 8, 16, 16), scope="local")
        for n_c_fused in T.parallel(8):
            for ax0, ax1 in T.grid(18, 18):
                with T.block("pad"):
                    vn = T.axis.spatial(1, 0)
                    vc = T.axis.spatial(8, n_c_fused)
                    vh = T.axis.spatial(18, ax0)
                    vw = T.axis.spatial(18, ax1)
                    T.reads(X[vn, vc, vh - 1, vw - 1])
                    T.writes(X_pad[vn, vc, vh, vw])
                    X_pad[vn, vc, vh, vw] = T.if_then_else(1 <= vh and vh < 17 and 1 <= vw and vw < 17, X[vn, vc, vh - 1, vw - 1], T.float32(0.0))
            for y_0, x_0 in T.grid(4, 2):
                for y_1_init in T.unroll(4):
                    for x_1_init in T.vectorized(8):
                        with T.block("dw_init"):
                            vn = T.axis.spatial(1, 0)
                            vc = T.axis.spatial(8, n_c_fused)
                            vy = T.axis.spatial(16, y_0 * 4 + y_1_init)
                            vx = T.axis.spatial(16, x_0 * 8 + x_1_init)
                            T.reads()
                            T.writes(Y_local[vn, vc, vy, vx])
                            Y_local[vn, vc, vy, vx] = T.float32(0.0)
                for ry in T.unroll(3):
                    for rx in T.unroll(3):
                        for y_1 in T.unroll(4):
                            for x_1 in T.vectorized(8):
                                with T.block("dw_update"):
                                    vn = T.axis.spatial(1, 0)
                                    vc = T.axis.spatial(8, n_c_fused)
                                    vy = T.axis.spatial(16, y_0 * 4 + y_1)
                                    vx = T.axis.spatial(16, x_0 * 8 + x_1)
                                    vry = T.axis.reduce(3, ry)
                                    vrx = T.axis.reduce(3, rx)
                                    T.reads(Y_local[vn, vc, vy, vx], X_pad[vn, vc, vy + vry, vx + vrx], W[vc, 0, vry, vrx])
                                    T.writes(Y_local[vn, vc, vy, vx])
                                    Y_local[vn, vc, vy, vx] = Y_local[vn, vc, vy, vx] + X_pad[vn, vc, vy + vry, vx + vrx] * W[vc, 0, vry, vrx]
                for ax0_1, ax1_1 in T.grid(4, 8):
                    with T.block("Y_local"):
                        v0 = T.axis.spatial(1, 0)
                        v1 = T.axis.spatial(8, n_c_fused)
                        v2 = T.axis.spatial(16, y_0 * 4 + ax0_1)
                        v3 = T.axis.spatial(16, x_0 * 8 + ax1_1)
                        T.reads(Y_local[v0, v1, v2, v3])
                        T.writes(Y[v0, v1, v2, v3])
                        Y[v0, v1, v2, v3] = Y_local[v0, v1, v2, v3]
