from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def softmax(data: T.Buffer((8, 16, 32), "float32"), out: T.Buffer((8, 16, 32), "float32")):
        T.func_attr({"global_symbol": "softmax", "tir.noalias": T.bool(True)})
        maxelem = T.alloc_buffer((8, 1, 32))
        expsum = T.alloc_buffer((8, 1, 32))
        for ax0_ax1_ax2_0_fused in T.parallel(32):
            for ax2_1_init in T.vectorized(8):
                with T.block("maxelem_init"):
                    vax0 = T.axis.spatial(8, ax0_ax1_ax2_0_fused // 4)
                    vax1 = T.axis.spatial(1, 0)
                    vax2 = T.axis.spatial(32, ax0_ax1_ax2_0_fused % 4 * 8 + ax2_1_init)
                    T.reads()
                    T.writes(maxelem[vax0, vax1, vax2])
                    maxelem[vax0, vax1, vax2] = T.float32("-inf")
            for r0 in range(16):
                for ax2_1 in T.vectorized(8):
                    with T.block("maxelem_update"):
                        vax0 = T.axis.spatial(8, ax0_ax1_ax2_0_fused // 4)
                        vax1 = T.axis.spatial(1, 0)
                        vax2 = T.axis.spatial(32, ax0_ax1_ax2_0_fused % 4 * 8 + ax2_1)
                        vr0 = T.axis.reduce(16, r0)
                        T.reads(maxelem[vax0, vax1, vax2], data[vax0, vr0, vax2])
                        T.writes(maxelem[vax0, vax1, vax2])
                        maxelem[vax0, vax1, vax2] = T.max(maxelem[vax0, vax1, vax2], data[vax0, vr0, vax2])
        for ax0_ax1_ax2_0_fused_1 in T.parallel(32):
            for ax2_1_1_init in T.vectorized(8):
                with T.block("expsum_init"):
                    vax0 = T.axis.spatial(8, ax0_ax1_ax2_0_fused_1 // 4)
                    vax1 = T.axis.spatial(1, 0)
                    vax2 = T.axis.spatial(32, ax0_ax1_ax2_0_fused_1 % 4 * 8 + ax2_1_1_init)
                    T.reads()
                    T.writes(expsum[vax0, vax1, vax2])
                    expsum[vax0, vax1, vax2] = T.float32(0.0)
            for r0 in range(16):
                for ax2_1_1 in T.vectorized(8):
                    with T.block("expsum_update"):
                        vax0 = T.axis.spatial(8, ax0_ax1_ax2_0_fused_1 // 4)
                        vax1 = T.axis.spatial(1, 0)
                        vax2 = T.axis.spatial(32, ax0_ax1_ax2_0_fused_1 % 4 * 8 + ax2_1_1)
                        vr0 = T.axis.reduce(16, r0)
                        T.reads(expsum[vax0, vax1, vax2], data[vax0, vr0, vax2], maxelem[vax0, 0, vax2])
                        T.writes(expsum[vax0, vax1, vax2])
                        expsum[vax0, vax1, vax2] = expsum[vax0, vax1, vax2] + T.exp(data[vax0, vr0, vax2] - maxelem[vax0, 0, vax2])
        for ax0_ax1_fused in T.parallel(128):
            for ax2_0 in range(4):
                for ax2_1_2 in T.vectorized(8):
                    with T.block("softmax"):
                        vax0 = T.axis.spatial(8, ax0_ax1_fused // 16)
                        vax1 = T.axis.spatial(16, ax0_ax1_fused % 16)
                        vax2 = T.axis.spatial(32, ax2_0 * 8 + ax2_1_2)
                        T.reads(data[vax0, vax1, vax2], maxelem[vax0, 0, vax2], expsum[vax0, 0, vax2])
                        T.writes(out[vax0, vax1, vax2])
                        out[vax0, vax1, vax2] = T.exp(data[vax0, vax1, vax2] - maxelem[vax0, 0, vax2]) / expsum[vax0, 0, vax2]
