# A 2x2 stride-2 transposed conv (the upsampling of a detection head) with
# its bias and relu: the default rules split the output rows and columns by
# the stride and tile the 2 x 2 phases x vectors along the column (AVX2).
from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def fused_conv2d_transpose_add_relu(x: T.Buffer((T.int64(1), T.int64(8), T.int64(6), T.int64(8)), "float32"), w: T.Buffer((T.int64(8), T.int64(16), T.int64(2), T.int64(2)), "float32"), b: T.Buffer((T.int64(1), T.int64(16), T.int64(1), T.int64(1)), "float32"), relu: T.Buffer((T.int64(1), T.int64(16), T.int64(12), T.int64(16)), "float32")):
        T.func_attr({"global_symbol": "fused_conv2d_transpose_add_relu", "tir.noalias": T.bool(True), "fused_ops": "conv2d_transpose+add+relu"})
        lv0 = T.alloc_buffer((T.int64(1), T.int64(16), T.int64(12), T.int64(16)))
        lv1 = T.alloc_buffer((T.int64(1), T.int64(16), T.int64(12), T.int64(16)))
        for ax0, ax1, ax2, ax3, rc, rh, rw in T.grid(T.int64(1), T.int64(16), T.int64(12), T.int64(16), T.int64(8), T.int64(1), T.int64(1)):
            with T.block("conv2d_transpose_nchw"):
                vax0, vax1, vax2, vax3, vrc, vrh, vrw = T.axis.remap("SSSSRRR", [ax0, ax1, ax2, ax3, rc, rh, rw])
                T.reads(x[vax0, vrc, vax2 // T.int64(2), vax3 // T.int64(2)], w[vrc, vax1, vax2 % T.int64(2), vax3 % T.int64(2)])
                T.writes(lv0[vax0, vax1, vax2, vax3])
                with T.init():
                    lv0[vax0, vax1, vax2, vax3] = T.float32(0.0)
                lv0[vax0, vax1, vax2, vax3] = lv0[vax0, vax1, vax2, vax3] + x[vax0, vrc, vax2 // T.int64(2), vax3 // T.int64(2)] * w[vrc, vax1, vax2 % T.int64(2), vax3 % T.int64(2)]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(16), T.int64(12), T.int64(16)):
            with T.block("add"):
                vax0, vax1, vax2, vax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(lv0[T.int64(0), vax1, vax2, vax3], b[T.int64(0), vax1, T.int64(0), T.int64(0)])
                T.writes(lv1[vax0, vax1, vax2, vax3])
                lv1[vax0, vax1, vax2, vax3] = lv0[T.int64(0), vax1, vax2, vax3] + b[T.int64(0), vax1, T.int64(0), T.int64(0)]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(16), T.int64(12), T.int64(16)):
            with T.block("relu"):
                vax0, vax1, vax2, vax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(lv1[T.int64(0), vax1, vax2, vax3])
                T.writes(relu[vax0, vax1, vax2, vax3])
                relu[vax0, vax1, vax2, vax3] = T.max(lv1[T.int64(0), vax1, vax2, vax3], T.float32(0.0))
