# A 1-D transposed conv (the 2-D one over a row, stride 1 x 2) with its
# bias: only the column is split by phases.
from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def fused_conv2d_transpose_add(x: T.Buffer((T.int64(1), T.int64(4), T.int64(1), T.int64(32)), "float32"), w: T.Buffer((T.int64(4), T.int64(2), T.int64(1), T.int64(2)), "float32"), b: T.Buffer((T.int64(1), T.int64(2), T.int64(1), T.int64(1)), "float32"), add: T.Buffer((T.int64(1), T.int64(2), T.int64(1), T.int64(64)), "float32")):
        T.func_attr({"global_symbol": "fused_conv2d_transpose_add", "tir.noalias": T.bool(True), "fused_ops": "conv2d_transpose+add"})
        lv0 = T.alloc_buffer((T.int64(1), T.int64(2), T.int64(1), T.int64(64)))
        for ax0, ax1, ax2, ax3, rc, rh, rw in T.grid(T.int64(1), T.int64(2), T.int64(1), T.int64(64), T.int64(4), T.int64(1), T.int64(1)):
            with T.block("conv2d_transpose_nchw"):
                vax0, vax1, vax2, vax3, vrc, vrh, vrw = T.axis.remap("SSSSRRR", [ax0, ax1, ax2, ax3, rc, rh, rw])
                T.reads(x[vax0, vrc, vax2 + vrh * T.int64(-1), vax3 // T.int64(2)], w[vrc, vax1, vrh, vax3 % T.int64(2)])
                T.writes(lv0[vax0, vax1, vax2, vax3])
                with T.init():
                    lv0[vax0, vax1, vax2, vax3] = T.float32(0.0)
                lv0[vax0, vax1, vax2, vax3] = lv0[vax0, vax1, vax2, vax3] + x[vax0, vrc, vax2 + vrh * T.int64(-1), vax3 // T.int64(2)] * w[vrc, vax1, vrh, vax3 % T.int64(2)]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(2), T.int64(1), T.int64(64)):
            with T.block("add"):
                vax0, vax1, vax2, vax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(lv0[T.int64(0), vax1, T.int64(0), vax3], b[T.int64(0), vax1, T.int64(0), T.int64(0)])
                T.writes(add[vax0, vax1, vax2, vax3])
                add[vax0, vax1, vax2, vax3] = lv0[T.int64(0), vax1, T.int64(0), vax3] + b[T.int64(0), vax1, T.int64(0), T.int64(0)]
