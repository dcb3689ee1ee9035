# A 3x3 depthwise conv over 7-wide rows (MobileNet's last stage) whose
# weight the function may lay out anew: no vector width divides the row, so
# the rules block the weight and the padded input by channels and vectorize
# over them, a row of 7 pixels x one vector per tile (AVX2).
from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def fused_conv2d_add_relu(x: T.Buffer((T.int64(1), T.int64(32), T.int64(7), T.int64(7)), "float32"), w: T.Buffer((T.int64(32), T.int64(1), T.int64(3), T.int64(3)), "float32"), b: T.Buffer((T.int64(1), T.int64(32), T.int64(1), T.int64(1)), "float32"), relu: T.Buffer((T.int64(1), T.int64(32), T.int64(7), T.int64(7)), "float32")):
        T.func_attr({"global_symbol": "fused_conv2d_add_relu", "tir.noalias": T.bool(True), "fused_ops": "conv2d+add+relu", "layout_free_buffers": [1]})
        lv0 = T.alloc_buffer((T.int64(1), T.int64(32), T.int64(7), T.int64(7)))
        pad_temp = T.alloc_buffer((T.int64(1), T.int64(32), T.int64(9), T.int64(9)))
        lv1 = T.alloc_buffer((T.int64(1), T.int64(32), T.int64(7), T.int64(7)))
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(32), T.int64(9), T.int64(9)):
            with T.block("pad_temp"):
                vax0, vax1, vax2, vax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(x[vax0, vax1, vax2 - T.int64(1), vax3 - T.int64(1)])
                T.writes(pad_temp[vax0, vax1, vax2, vax3])
                pad_temp[vax0, vax1, vax2, vax3] = T.if_then_else(vax2 >= T.int64(1) and vax2 < T.int64(8) and (vax3 >= T.int64(1) and vax3 < T.int64(8)), x[vax0, vax1, vax2 - T.int64(1), vax3 - T.int64(1)], T.float32(0.0))
        for ax0, ax1, ax2, ax3, rc, rh, rw in T.grid(T.int64(1), T.int64(32), T.int64(7), T.int64(7), T.int64(1), T.int64(3), T.int64(3)):
            with T.block("conv2d_nchw"):
                vax0, vax1, vax2, vax3, vrc, vrh, vrw = T.axis.remap("SSSSRRR", [ax0, ax1, ax2, ax3, rc, rh, rw])
                T.reads(pad_temp[vax0, vax1 + vrc, vax2 + vrh, vax3 + vrw], w[vax1, vrc, vrh, vrw])
                T.writes(lv0[vax0, vax1, vax2, vax3])
                with T.init():
                    lv0[vax0, vax1, vax2, vax3] = T.float32(0.0)
                lv0[vax0, vax1, vax2, vax3] = lv0[vax0, vax1, vax2, vax3] + pad_temp[vax0, vax1 + vrc, vax2 + vrh, vax3 + vrw] * w[vax1, vrc, vrh, vrw]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(32), T.int64(7), T.int64(7)):
            with T.block("add"):
                vax0, vax1, vax2, vax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(lv0[T.int64(0), vax1, vax2, vax3], b[T.int64(0), vax1, T.int64(0), T.int64(0)])
                T.writes(lv1[vax0, vax1, vax2, vax3])
                lv1[vax0, vax1, vax2, vax3] = lv0[T.int64(0), vax1, vax2, vax3] + b[T.int64(0), vax1, T.int64(0), T.int64(0)]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(32), T.int64(7), T.int64(7)):
            with T.block("relu"):
                vax0, vax1, vax2, vax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(lv1[T.int64(0), vax1, vax2, vax3])
                T.writes(relu[vax0, vax1, vax2, vax3])
                relu[vax0, vax1, vax2, vax3] = T.max(lv1[T.int64(0), vax1, vax2, vax3], T.float32(0.0))
