# A conv2d with a bias add whose weight the function may lay out anew
# (layout_free_buffers): the default rules block the weight by output
# channels and vectorize over them; the 7-wide rows fit no vector.
from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def conv_add(relu_13: T.Buffer((T.int64(1), T.int64(16), T.int64(7), T.int64(7)), "float32"), c1: T.Buffer((T.int64(32), T.int64(16), T.int64(3), T.int64(3)), "float32"), c2: T.Buffer((T.int64(32), T.int64(1), T.int64(1)), "float32"), add: T.Buffer((T.int64(1), T.int64(32), T.int64(7), T.int64(7)), "float32")):
        T.func_attr({"global_symbol": "conv_add", "tir.noalias": T.bool(True), "fused_ops": "conv2d+add", "layout_free_buffers": [1]})
        conv_16 = T.alloc_buffer((T.int64(1), T.int64(32), T.int64(7), T.int64(7)))
        pad_temp = T.alloc_buffer((T.int64(1), T.int64(16), T.int64(9), T.int64(9)))
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(16), T.int64(9), T.int64(9)):
            with T.block("pad_temp"):
                vax0, vax1, vax2, vax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(relu_13[vax0, vax1, vax2 - T.int64(1), vax3 - T.int64(1)])
                T.writes(pad_temp[vax0, vax1, vax2, vax3])
                pad_temp[vax0, vax1, vax2, vax3] = T.if_then_else(vax2 >= T.int64(1) and vax2 < T.int64(8) and (vax3 >= T.int64(1) and vax3 < T.int64(8)), relu_13[vax0, vax1, vax2 - T.int64(1), vax3 - T.int64(1)], T.float32(0.0))
        for ax0, ax1, ax2, ax3, rc, rh, rw in T.grid(T.int64(1), T.int64(32), T.int64(7), T.int64(7), T.int64(16), T.int64(3), T.int64(3)):
            with T.block("conv2d_nchw"):
                vax0, vax1, vax2, vax3, vrc, vrh, vrw = T.axis.remap("SSSSRRR", [ax0, ax1, ax2, ax3, rc, rh, rw])
                T.reads(pad_temp[vax0, vrc, vax2 + vrh, vax3 + vrw], c1[vax1, vrc, vrh, vrw])
                T.writes(conv_16[vax0, vax1, vax2, vax3])
                with T.init():
                    conv_16[vax0, vax1, vax2, vax3] = T.float32(0.0)
                conv_16[vax0, vax1, vax2, vax3] = conv_16[vax0, vax1, vax2, vax3] + pad_temp[vax0, vrc, vax2 + vrh, vax3 + vrw] * c1[vax1, vrc, vrh, vrw]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(32), T.int64(7), T.int64(7)):
            with T.block("add"):
                vax0, vax1, vax2, vax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(conv_16[T.int64(0), vax1, vax2, vax3], c2[vax1, T.int64(0), T.int64(0)])
                T.writes(add[vax0, vax1, vax2, vax3])
                add[vax0, vax1, vax2, vax3] = conv_16[T.int64(0), vax1, vax2, vax3] + c2[vax1, T.int64(0), T.int64(0)]
