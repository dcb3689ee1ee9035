# A grouped transposed conv (2 groups), stride 2, kernel 2: the group's
# channels are indexed through the output channel; the phases tile alike.
from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def conv2d_transpose(data: T.Buffer((T.int64(1), T.int64(8), T.int64(4), T.int64(8)), "float32"), weight: T.Buffer((T.int64(8), T.int64(3), T.int64(2), T.int64(2)), "float32"), conv2d_transpose_nchw: T.Buffer((T.int64(1), T.int64(6), T.int64(8), T.int64(16)), "float32")):
        T.func_attr({"global_symbol": "conv2d_transpose", "tir.noalias": T.bool(True)})
        for ax0, ax1, ax2, ax3, rc, rh, rw in T.grid(T.int64(1), T.int64(6), T.int64(8), T.int64(16), T.int64(4), T.int64(1), T.int64(1)):
            with T.block("conv2d_transpose_nchw"):
                vax0, vax1, vax2, vax3, vrc, vrh, vrw = T.axis.remap("SSSSRRR", [ax0, ax1, ax2, ax3, rc, rh, rw])
                T.reads(data[vax0, vax1 // T.int64(3) * T.int64(4) + vrc, vax2 // T.int64(2), vax3 // T.int64(2)], weight[vax1 // T.int64(3) * T.int64(4) + vrc, vax1 % T.int64(3), vax2 % T.int64(2), vax3 % T.int64(2)])
                T.writes(conv2d_transpose_nchw[vax0, vax1, vax2, vax3])
                with T.init():
                    conv2d_transpose_nchw[vax0, vax1, vax2, vax3] = T.float32(0.0)
                conv2d_transpose_nchw[vax0, vax1, vax2, vax3] = conv2d_transpose_nchw[vax0, vax1, vax2, vax3] + data[vax0, vax1 // T.int64(3) * T.int64(4) + vrc, vax2 // T.int64(2), vax3 // T.int64(2)] * weight[vax1 // T.int64(3) * T.int64(4) + vrc, vax1 % T.int64(3), vax2 % T.int64(2), vax3 % T.int64(2)]
