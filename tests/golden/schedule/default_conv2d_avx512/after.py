from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def conv2d(X: T.Buffer((1, 3, 32, 32), "float32"), W: T.Buffer((12, 3, 3, 3), "float32"), Y: T.Buffer((1, 12, 16, 16), "float32")):
        T.func_attr({"global_symbol": "conv2d", "tir.noalias": T.bool(True)})
        X_pad = T.alloc_buffer((1, 3, 34, 34))
        Y_local = T.alloc_buffer((1, 12, 16, 16), scope="local")
        for n, c, h, w in T.grid(1, 3, 34, 34):
            with T.block("pad"):
                vn, vc, vh, vw = T.axis.remap("SSSS", [n, c, h, w])
                T.reads(X[vn, vc, vh - 1, vw - 1])
                T.writes(X_pad[vn, vc, vh, vw])
                X_pad[vn, vc, vh, vw] = T.if_then_else(1 <= vh and vh < 33 and 1 <= vw and vw < 33, X[vn, vc, vh - 1, vw - 1], T.float32(0.0))
        for n_y_x_0_fused in T.parallel(16):
            for f_0 in range(2):
                for f_1_init in T.unroll(6):
                    for x_1_init in T.unroll(1):
                        for x_2_init in T.vectorized(16):
                            with T.block("conv_init"):
                                vn = T.axis.spatial(1, 0)
                                vf = T.axis.spatial(12, f_0 * 6 + f_1_init)
                                vy = T.axis.spatial(16, n_y_x_0_fused)
                                vx = T.axis.spatial(16, x_1_init * 16 + x_2_init)
                                T.reads()
                                T.writes(Y_local[vn, vf, vy, vx])
                                Y_local[vn, vf, vy, vx] = T.float32(0.0)
                for rc, ry, rx in T.grid(3, 3, 3):
                    for f_1 in T.unroll(6):
                        for x_1 in T.unroll(1):
                            for x_2 in T.vectorized(16):
                                with T.block("conv_update"):
                                    vn = T.axis.spatial(1, 0)
                                    vf = T.axis.spatial(12, f_0 * 6 + f_1)
                                    vy = T.axis.spatial(16, n_y_x_0_fused)
                                    vx = T.axis.spatial(16, x_1 * 16 + x_2)
                                    vrc = T.axis.reduce(3, rc)
                                    vry = T.axis.reduce(3, ry)
                                    vrx = T.axis.reduce(3, rx)
                                    T.reads(Y_local[vn, vf, vy, vx], X_pad[vn, vrc, vy * 2 + vry, vx * 2 + vrx], W[vf, vrc, vry, vrx])
                                    T.writes(Y_local[vn, vf, vy, vx])
                                    Y_local[vn, vf, vy, vx] = Y_local[vn, vf, vy, vx] + X_pad[vn, vrc, vy * 2 + vry, vx * 2 + vrx] * W[vf, vrc, vry, vrx]
                for ax0_1 in T.unroll(6):
                    for ax1_1 in T.vectorized(16):
                        with T.block("Y_local"):
                            v0 = T.axis.spatial(1, 0)
                            v1 = T.axis.spatial(12, f_0 * 6 + ax0_1)
                            v2 = T.axis.spatial(16, n_y_x_0_fused)
                            v3 = T.axis.spatial(16, ax1_1)
                            T.reads(Y_local[v0, v1, v2, v3])
                            T.writes(Y[v0, v1, v2, v3])
                            Y[v0, v1, v2, v3] = Y_local[v0, v1, v2, v3]
