# Default rules: softmax over the middle axis of 8 x 16 x 32, as legalization
# writes it: the reductions vectorize along the innermost spatial axis.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def softmax(data: T.Buffer((8, 16, 32), "float32"), out: T.Buffer((8, 16, 32), "float32")):
        T.func_attr({"global_symbol": "softmax", "tir.noalias": True})
        maxelem = T.alloc_buffer((8, 1, 32))
        expsum = T.alloc_buffer((8, 1, 32))
        for ax0, ax1, ax2, r0 in T.grid(8, 1, 32, 16):
            with T.block("maxelem"):
                vax0, vax1, vax2, vr0 = T.axis.remap("SSSR", [ax0, ax1, ax2, r0])
                with T.init():
                    maxelem[vax0, vax1, vax2] = T.float32("-inf")
                maxelem[vax0, vax1, vax2] = T.max(maxelem[vax0, vax1, vax2], data[vax0, vr0, vax2])
        for ax0, ax1, ax2, r0 in T.grid(8, 1, 32, 16):
            with T.block("expsum"):
                vax0, vax1, vax2, vr0 = T.axis.remap("SSSR", [ax0, ax1, ax2, r0])
                with T.init():
                    expsum[vax0, vax1, vax2] = T.float32(0.0)
                expsum[vax0, vax1, vax2] = expsum[vax0, vax1, vax2] + T.exp(data[vax0, vr0, vax2] - maxelem[vax0, 0, vax2])
        for ax0, ax1, ax2 in T.grid(8, 16, 32):
            with T.block("softmax"):
                vax0, vax1, vax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                out[vax0, vax1, vax2] = T.exp(data[vax0, vax1, vax2] - maxelem[vax0, 0, vax2]) / expsum[vax0, 0, vax2]
