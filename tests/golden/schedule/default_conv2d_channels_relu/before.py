# A conv2d + bias add + relu as fusion leaves it (the epilogue reads the conv's
# output at [0, c, h, w]): the default rules compute the epilogue at the
# register tile, folded into the tile's write-back.
from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def conv_add_relu(x: T.Buffer((T.int64(1), T.int64(16), T.int64(14), T.int64(14)), "float32"), c1: T.Buffer((T.int64(64), T.int64(16), T.int64(3), T.int64(3)), "float32"), c2: T.Buffer((T.int64(64), T.int64(1), T.int64(1)), "float32"), relu: T.Buffer((T.int64(1), T.int64(64), T.int64(14), T.int64(14)), "float32")):
        T.func_attr({"global_symbol": "conv_add_relu", "tir.noalias": T.bool(True), "fused_ops": "conv2d+add+relu", "layout_free_buffers": [1]})
        conv = T.alloc_buffer((T.int64(1), T.int64(64), T.int64(14), T.int64(14)))
        pad_temp = T.alloc_buffer((T.int64(1), T.int64(16), T.int64(16), T.int64(16)))
        bn_out = T.alloc_buffer((T.int64(1), T.int64(64), T.int64(14), T.int64(14)))
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(16), T.int64(16), T.int64(16)):
            with T.block("pad_temp"):
                vax0, vax1, vax2, vax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(x[vax0, vax1, vax2 - T.int64(1), vax3 - T.int64(1)])
                T.writes(pad_temp[vax0, vax1, vax2, vax3])
                pad_temp[vax0, vax1, vax2, vax3] = T.if_then_else(vax2 >= T.int64(1) and vax2 < T.int64(15) and (vax3 >= T.int64(1) and vax3 < T.int64(15)), x[vax0, vax1, vax2 - T.int64(1), vax3 - T.int64(1)], T.float32(0.0))
        for ax0, ax1, ax2, ax3, rc, rh, rw in T.grid(T.int64(1), T.int64(64), T.int64(14), T.int64(14), T.int64(16), T.int64(3), T.int64(3)):
            with T.block("conv2d_nchw"):
                vax0, vax1, vax2, vax3, vrc, vrh, vrw = T.axis.remap("SSSSRRR", [ax0, ax1, ax2, ax3, rc, rh, rw])
                T.reads(pad_temp[vax0, vrc, vax2 + vrh, vax3 + vrw], c1[vax1, vrc, vrh, vrw])
                T.writes(conv[vax0, vax1, vax2, vax3])
                with T.init():
                    conv[vax0, vax1, vax2, vax3] = T.float32(0.0)
                conv[vax0, vax1, vax2, vax3] = conv[vax0, vax1, vax2, vax3] + pad_temp[vax0, vrc, vax2 + vrh, vax3 + vrw] * c1[vax1, vrc, vrh, vrw]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(64), T.int64(14), T.int64(14)):
            with T.block("add"):
                vax0, vax1, vax2, vax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(conv[T.int64(0), vax1, vax2, vax3], c2[vax1, T.int64(0), T.int64(0)])
                T.writes(bn_out[vax0, vax1, vax2, vax3])
                bn_out[vax0, vax1, vax2, vax3] = conv[T.int64(0), vax1, vax2, vax3] + c2[vax1, T.int64(0), T.int64(0)]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(64), T.int64(14), T.int64(14)):
            with T.block("relu"):
                vax0, vax1, vax2, vax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(bn_out[T.int64(0), vax1, vax2, vax3])
                T.writes(relu[vax0, vax1, vax2, vax3])
                relu[vax0, vax1, vax2, vax3] = T.max(bn_out[T.int64(0), vax1, vax2, vax3], T.float32(0.0))
