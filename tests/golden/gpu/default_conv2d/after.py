from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def conv(X: T.Buffer((1, 16, 16, 16), "float32"), W: T.Buffer((32, 16, 3, 3), "float32"), Y: T.Buffer((1, 32, 16, 16), "float32")):
        T.func_attr({"global_symbol": "conv", "tir.noalias": T.bool(True)})
        Y_local = T.alloc_buffer((1, 32, 16, 16), scope="local")
        X_shared = T.alloc_buffer((1, 16, 16, 16), scope="shared")
        W_shared = T.alloc_buffer((32, 16, 3, 3), scope="shared")
        for n_co_fused in T.thread_binding(32, thread="blockIdx.z"):
            for oh_0 in T.thread_binding(1, thread="blockIdx.y"):
                for ow_0 in T.thread_binding(1, thread="blockIdx.x"):
                    for oh_1_ow_1_fused in T.thread_binding(64, thread="threadIdx.x"):
                        for oh_2_init, ow_2_init in T.grid(2, 2):
                            with T.block("conv_init"):
                                vn = T.axis.spatial(1, 0)
                                vco = T.axis.spatial(32, n_co_fused)
                                voh = T.axis.spatial(16, oh_0 * 16 + oh_1_ow_1_fused // 8 * 2 + oh_2_init)
                                vow = T.axis.spatial(16, ow_0 * 16 + oh_1_ow_1_fused % 8 * 2 + ow_2_init)
                                T.reads()
                                T.writes(Y_local[vn, vco, voh, vow])
                                Y_local[vn, vco, voh, vow] = T.float32(0.0)
                        for ci_kh_kw_fused_0 in range(9):
                            for ax0_2_ax1_2_ax2_1_fused_0 in range(16):
                                for ax0_2_ax1_2_ax2_1_fused_1 in T.thread_binding(64, thread="threadIdx.x"):
                                    with T.block("X_shared"):
                                        v0 = T.axis.spatial(1, 0)
                                        v1 = T.axis.spatial(16, ci_kh_kw_fused_0 * 16 // 9 + (ax0_2_ax1_2_ax2_1_fused_0 * 64 + ax0_2_ax1_2_ax2_1_fused_1) // 324)
                                        v2 = T.axis.spatial(16, oh_0 * 16 + (ax0_2_ax1_2_ax2_1_fused_0 * 64 + ax0_2_ax1_2_ax2_1_fused_1) // 18 % 18 - 1)
                                        v3 = T.axis.spatial(16, ow_0 * 16 + (ax0_2_ax1_2_ax2_1_fused_0 * 64 + ax0_2_ax1_2_ax2_1_fused_1) % 18 - 1)
                                        T.where(ci_kh_kw_fused_0 * 16 // 9 + (ax0_2_ax1_2_ax2_1_fused_0 * 64 + ax0_2_ax1_2_ax2_1_fused_1) // 324 < 16 and 0 <= oh_0 * 16 + (ax0_2_ax1_2_ax2_1_fused_0 * 64 + ax0_2_ax1_2_ax2_1_fused_1) // 18 % 18 - 1 and oh_0 * 16 + (ax0_2_ax1_2_ax2_1_fused_0 * 64 + ax0_2_ax1_2_ax2_1_fused_1) // 18 % 18 - 1 < 16 and 0 <= ow_0 * 16 + (ax0_2_ax1_2_ax2_1_fused_0 * 64 + ax0_2_ax1_2_ax2_1_fused_1) % 18 - 1 and ow_0 * 16 + (ax0_2_ax1_2_ax2_1_fused_0 * 64 + ax0_2_ax1_2_ax2_1_fused_1) % 18 - 1 < 16 and ax0_2_ax1_2_ax2_1_fused_0 * 64 + ax0_2_ax1_2_ax2_1_fused_1 < 972)
                                        T.reads(X[v0, v1, v2, v3])
                                        T.writes(X_shared[v0, v1, v2, v3])
                                        X_shared[v0, v1, v2, v3] = X[v0, v1, v2, v3]
                            for ax0_2_ax1_2_ax2_1_fused_0_1 in range(1):
                                for ax0_2_ax1_2_ax2_1_fused_1_1 in T.thread_binding(64, thread="threadIdx.x"):
                                    with T.block("W_shared"):
                                        v0 = T.axis.spatial(32, n_co_fused)
                                        v1 = T.axis.spatial(16, ci_kh_kw_fused_0 * 16 // 9 + (ax0_2_ax1_2_ax2_1_fused_0_1 * 64 + ax0_2_ax1_2_ax2_1_fused_1_1) // 9)
                                        v2 = T.axis.spatial(3, (ax0_2_ax1_2_ax2_1_fused_0_1 * 64 + ax0_2_ax1_2_ax2_1_fused_1_1) // 3 % 3)
                                        v3 = T.axis.spatial(3, (ax0_2_ax1_2_ax2_1_fused_0_1 * 64 + ax0_2_ax1_2_ax2_1_fused_1_1) % 3)
                                        T.where(ci_kh_kw_fused_0 * 16 // 9 + (ax0_2_ax1_2_ax2_1_fused_0_1 * 64 + ax0_2_ax1_2_ax2_1_fused_1_1) // 9 < 16 and ax0_2_ax1_2_ax2_1_fused_0_1 * 64 + ax0_2_ax1_2_ax2_1_fused_1_1 < 27)
                                        T.reads(W[v0, v1, v2, v3])
                                        T.writes(W_shared[v0, v1, v2, v3])
                                        W_shared[v0, v1, v2, v3] = W[v0, v1, v2, v3]
                            for ci_kh_kw_fused_1, oh_2, ow_2 in T.grid(16, 2, 2):
                                with T.block("conv_update"):
                                    vn = T.axis.spatial(1, 0)
                                    vco = T.axis.spatial(32, n_co_fused)
                                    voh = T.axis.spatial(16, oh_0 * 16 + oh_1_ow_1_fused // 8 * 2 + oh_2)
                                    vow = T.axis.spatial(16, ow_0 * 16 + oh_1_ow_1_fused % 8 * 2 + ow_2)
                                    vci = T.axis.reduce(16, (ci_kh_kw_fused_0 * 16 + ci_kh_kw_fused_1) // 9)
                                    vkh = T.axis.reduce(3, (ci_kh_kw_fused_0 * 16 + ci_kh_kw_fused_1) // 3 % 3)
                                    vkw = T.axis.reduce(3, (ci_kh_kw_fused_0 * 16 + ci_kh_kw_fused_1) % 3)
                                    T.reads(Y_local[vn, vco, voh, vow], X_shared[vn, vci, voh + vkh - 1, vow + vkw - 1], W_shared[vco, vci, vkh, vkw])
                                    T.writes(Y_local[vn, vco, voh, vow])
                                    Y_local[vn, vco, voh, vow] = Y_local[vn, vco, voh, vow] + T.if_then_else(1 <= voh + vkh and voh + vkh < 17 and 1 <= vow + vkw and vow + vkw < 17, X_shared[vn, vci, voh + vkh - 1, vow + vkw - 1], T.float32(0.0)) * W_shared[vco, vci, vkh, vkw]
                        for ax0_1, ax1_1 in T.grid(2, 2):
                            with T.block("Y_local"):
                                v0 = T.axis.spatial(1, 0)
                                v1 = T.axis.spatial(32, n_co_fused)
                                v2 = T.axis.spatial(16, oh_0 * 16 + oh_1_ow_1_fused // 8 * 2 + ax0_1)
                                v3 = T.axis.spatial(16, ow_0 * 16 + oh_1_ow_1_fused % 8 * 2 + ax1_1)
                                T.reads(Y_local[v0, v1, v2, v3])
                                T.writes(Y[v0, v1, v2, v3])
                                Y[v0, v1, v2, v3] = Y_local[v0, v1, v2, v3]
