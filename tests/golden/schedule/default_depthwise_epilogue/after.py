from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def dwconv(X: T.Buffer((1, 16, 32, 32), "float32"), W: T.Buffer((16, 1, 3, 3), "float32"), B: T.Buffer((16, 1, 1), "float32"), Y: T.Buffer((1, 16, 16, 16), "float32")):
        T.func_attr({"global_symbol": "dwconv", "tir.noalias": T.bool(True)})
        X_pad = T.alloc_buffer((1, 16, 34, 34))
        C = T.alloc_buffer((1, 16, 16, 16))
        C_local = T.alloc_buffer((1, 16, 16, 16), scope="local")
        for n_c_fused in T.parallel(16):
            for ax0, ax1 in T.grid(33, 33):
                with T.block("pad"):
                    vn = T.axis.spatial(1, 0)
                    vc = T.axis.spatial(16, n_c_fused)
                    vh = T.axis.spatial(34, ax0)
                    vw = T.axis.spatial(34, ax1)
                    T.reads(X[vn, vc, vh - 1, vw - 1])
                    T.writes(X_pad[vn, vc, vh, vw])
                    X_pad[vn, vc, vh, vw] = T.if_then_else(1 <= vh and vh < 33 and 1 <= vw and vw < 33, X[vn, vc, vh - 1, vw - 1], T.float32(0.0))
            for y_0, x_0 in T.grid(4, 2):
                for y_1_init in T.unroll(4):
                    for x_1_init in T.vectorized(8):
                        with T.block("dw_init"):
                            vn = T.axis.spatial(1, 0)
                            vc = T.axis.spatial(16, n_c_fused)
                            vy = T.axis.spatial(16, y_0 * 4 + y_1_init)
                            vx = T.axis.spatial(16, x_0 * 8 + x_1_init)
                            T.reads()
                            T.writes(C_local[vn, vc, vy, vx])
                            C_local[vn, vc, vy, vx] = T.float32(0.0)
                for rc in range(1):
                    for ry in T.unroll(3):
                        for rx in T.unroll(3):
                            for y_1 in T.unroll(4):
                                for x_1 in T.vectorized(8):
                                    with T.block("dw_update"):
                                        vn = T.axis.spatial(1, 0)
                                        vc = T.axis.spatial(16, n_c_fused)
                                        vy = T.axis.spatial(16, y_0 * 4 + y_1)
                                        vx = T.axis.spatial(16, x_0 * 8 + x_1)
                                        vrc = T.axis.reduce(1, rc)
                                        vry = T.axis.reduce(3, ry)
                                        vrx = T.axis.reduce(3, rx)
                                        T.reads(C_local[vn, vc, vy, vx], X_pad[vn, vc + vrc, vy * 2 + vry, vx * 2 + vrx], W[vc, vrc, vry, vrx])
                                        T.writes(C_local[vn, vc, vy, vx])
                                        C_local[vn, vc, vy, vx] = C_local[vn, vc, vy, vx] + X_pad[vn, vc + vrc, vy * 2 + vry, vx * 2 + vrx] * W[vc, vrc, vry, vrx]
                for ax0_1, ax1_1 in T.grid(4, 8):
                    with T.block("C_local"):
                        v0 = T.axis.spatial(1, 0)
                        v1 = T.axis.spatial(16, n_c_fused)
                        v2 = T.axis.spatial(16, y_0 * 4 + ax0_1)
                        v3 = T.axis.spatial(16, x_0 * 8 + ax1_1)
                        T.reads(C_local[v0, v1, v2, v3])
                        T.writes(C[v0, v1, v2, v3])
                        C[v0, v1, v2, v3] = C_local[v0, v1, v2, v3]
            for ax0_2, ax1_2_0 in T.grid(16, 2):
                for ax1_2_1 in T.vectorized(8):
                    with T.block("bias_clip"):
                        vn = T.axis.spatial(1, 0)
                        vc = T.axis.spatial(16, n_c_fused)
                        vy = T.axis.spatial(16, ax0_2)
                        vx = T.axis.spatial(16, ax1_2_0 * 8 + ax1_2_1)
                        T.reads(C[0, vc, vy, vx], B[vc, 0, 0])
                        T.writes(Y[vn, vc, vy, vx])
                        Y[vn, vc, vy, vx] = T.min(T.max(C[0, vc, vy, vx] + B[vc, 0, 0], T.float32(0.0)), T.float32(6.0))
