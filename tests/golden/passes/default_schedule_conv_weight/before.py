# A 1x1 conv with bias and relu whose weight is a constant: the default rules
# (AVX2, 4 threads) block the weight by output channels (OIHW -> O/8 I H W 8),
# vectorize over them, and the pass lays out the constant at the call the same
# way, so no inference does it.
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 7, 7), dtype="float32")) -> R.Tensor((1, 16, 7, 7), dtype="float32"):
        cls = Module
        with R.dataflow():
            out = R.call_tir(cls.fused_conv2d_add_relu, (x, R.const([[[[-0.375]], [[-0.6875]]], [[[0.3125]], [[-0.875]]], [[[0.0625]], [[-0.25]]], [[[-0.875]], [[0.0]]], [[[-0.9375]], [[-0.125]]], [[[-0.875]], [[-0.8125]]], [[[-0.125]], [[0.625]]], [[[-0.75]], [[-0.5625]]], [[[0.25]], [[0.875]]], [[[0.125]], [[-0.1875]]], [[[0.9375]], [[-0.9375]]], [[[0.6875]], [[-0.4375]]], [[[-0.6875]], [[-0.75]]], [[[-0.375]], [[0.625]]], [[[-0.625]], [[0.1875]]], [[[0.25]], [[-0.25]]]], "float32"), R.const([[[0.125]], [[-0.875]], [[-0.875]], [[-0.5625]], [[0.375]], [[-0.125]], [[-0.375]], [[0.1875]], [[-0.0625]], [[-0.375]], [[0.5625]], [[0.375]], [[-0.5]], [[0.125]], [[0.0625]], [[0.75]]], "float32")), out_sinfo=R.Tensor((1, 16, 7, 7), dtype="float32"))
            R.output(out)
        return out

    @T.prim_func
    def fused_conv2d_add_relu(x: T.Buffer((T.int64(1), T.int64(2), T.int64(7), T.int64(7)), "float32"), c1: T.Buffer((T.int64(16), T.int64(2), T.int64(1), T.int64(1)), "float32"), c2: T.Buffer((T.int64(16), T.int64(1), T.int64(1)), "float32"), relu: T.Buffer((T.int64(1), T.int64(16), T.int64(7), T.int64(7)), "float32")):
        T.func_attr({"global_symbol": "fused_conv2d_add_relu", "tir.noalias": T.bool(True), "fused_ops": "conv2d+add+relu"})
        c = T.alloc_buffer((T.int64(1), T.int64(16), T.int64(7), T.int64(7)))
        y = T.alloc_buffer((T.int64(1), T.int64(16), T.int64(7), T.int64(7)))
        for ax0, ax1, ax2, ax3, rc, rh, rw in T.grid(T.int64(1), T.int64(16), T.int64(7), T.int64(7), T.int64(2), T.int64(1), T.int64(1)):
            with T.block("conv2d_nchw"):
                vax0, vax1, vax2, vax3, vrc, vrh, vrw = T.axis.remap("SSSSRRR", [ax0, ax1, ax2, ax3, rc, rh, rw])
                T.reads(x[vax0, vrc, vax2 + vrh, vax3 + vrw], c1[vax1, vrc, vrh, vrw])
                T.writes(c[vax0, vax1, vax2, vax3])
                with T.init():
                    c[vax0, vax1, vax2, vax3] = T.float32(0.0)
                c[vax0, vax1, vax2, vax3] = c[vax0, vax1, vax2, vax3] + x[vax0, vrc, vax2 + vrh, vax3 + vrw] * c1[vax1, vrc, vrh, vrw]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(16), T.int64(7), T.int64(7)):
            with T.block("add"):
                vax0, vax1, vax2, vax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(c[T.int64(0), vax1, vax2, vax3], c2[vax1, T.int64(0), T.int64(0)])
                T.writes(y[vax0, vax1, vax2, vax3])
                y[vax0, vax1, vax2, vax3] = c[T.int64(0), vax1, vax2, vax3] + c2[vax1, T.int64(0), T.int64(0)]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(16), T.int64(7), T.int64(7)):
            with T.block("relu"):
                vax0, vax1, vax2, vax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(y[T.int64(0), vax1, vax2, vax3])
                T.writes(relu[vax0, vax1, vax2, vax3])
                relu[vax0, vax1, vax2, vax3] = T.max(y[T.int64(0), vax1, vax2, vax3], T.float32(0.0))
