# A conv2d whose output rows (7 wide) no vector width divides: the default
# rules give it a register tile of scalars (channels x columns) rather than
# leaving the loop nest as legalized.  AVX2.
from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def conv2d(data: T.Buffer((T.int64(1), T.int64(8), T.int64(7), T.int64(7)), "float32"), weight: T.Buffer((T.int64(16), T.int64(8), T.int64(3), T.int64(3)), "float32"), conv2d_nchw: T.Buffer((T.int64(1), T.int64(16), T.int64(7), T.int64(7)), "float32")):
        T.func_attr({"global_symbol": "conv2d", "tir.noalias": T.bool(True)})
        pad_temp = T.alloc_buffer((T.int64(1), T.int64(8), T.int64(9), T.int64(9)))
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(8), T.int64(9), T.int64(9)):
            with T.block("pad_temp"):
                vax0, vax1, vax2, vax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(data[vax0, vax1, vax2 - T.int64(1), vax3 - T.int64(1)])
                T.writes(pad_temp[vax0, vax1, vax2, vax3])
                pad_temp[vax0, vax1, vax2, vax3] = T.if_then_else(vax2 >= T.int64(1) and vax2 < T.int64(8) and (vax3 >= T.int64(1) and vax3 < T.int64(8)), data[vax0, vax1, vax2 - T.int64(1), vax3 - T.int64(1)], T.float32(0.0))
        for ax0, ax1, ax2, ax3, rc, rh, rw in T.grid(T.int64(1), T.int64(16), T.int64(7), T.int64(7), T.int64(8), T.int64(3), T.int64(3)):
            with T.block("conv2d_nchw"):
                vax0, vax1, vax2, vax3, vrc, vrh, vrw = T.axis.remap("SSSSRRR", [ax0, ax1, ax2, ax3, rc, rh, rw])
                T.reads(pad_temp[vax0, vrc, vax2 + vrh, vax3 + vrw], weight[vax1, vrc, vrh, vrw])
                T.writes(conv2d_nchw[vax0, vax1, vax2, vax3])
                with T.init():
                    conv2d_nchw[vax0, vax1, vax2, vax3] = T.float32(0.0)
                conv2d_nchw[vax0, vax1, vax2, vax3] = conv2d_nchw[vax0, vax1, vax2, vax3] + pad_temp[vax0, vrc, vax2 + vrh, vax3 + vrw] * weight[vax1, vrc, vrh, vrw]

