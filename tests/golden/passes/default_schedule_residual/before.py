# The default rules on the fused conv2d + add + relu kernels of a residual
# block and the relu before them, sized for AVX2 with 4 threads.
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 4, 8, 8), dtype="float32"), w1: R.Tensor((4, 4, 3, 3), dtype="float32"), w2: R.Tensor((4, 4, 3, 3), dtype="float32"), b: R.Tensor((1, 4, 1, 1), dtype="float32")) -> R.Tensor((1, 4, 8, 8), dtype="float32"):
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.relu, (x,), out_sinfo=R.Tensor((1, 4, 8, 8), dtype="float32"))
            r1 = R.call_tir(cls.fused_conv2d_add_relu, (a, w1, b), out_sinfo=R.Tensor((1, 4, 8, 8), dtype="float32"))
            out = R.call_tir(cls.fused_conv2d_add_relu1, (r1, w2, a), out_sinfo=R.Tensor((1, 4, 8, 8), dtype="float32"))
            R.output(out)
        return out

    @T.prim_func
    def relu(data: T.Buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)), "float32"), relu: T.Buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)), "float32")):
        T.func_attr({"global_symbol": "relu", "tir.noalias": T.bool(True)})
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(4), T.int64(8), T.int64(8)):
            with T.block("relu"):
                vax0, vax1, vax2, vax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(data[T.int64(0), vax1, vax2, vax3])
                T.writes(relu[vax0, vax1, vax2, vax3])
                relu[vax0, vax1, vax2, vax3] = T.max(data[T.int64(0), vax1, vax2, vax3], T.float32(0.0))

    @T.prim_func
    def conv2d(data: T.Buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)), "float32"), weight: T.Buffer((T.int64(4), T.int64(4), T.int64(3), T.int64(3)), "float32"), conv2d_nchw: T.Buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)), "float32")):
        T.func_attr({"global_symbol": "conv2d", "tir.noalias": T.bool(True)})
        pad_temp = T.alloc_buffer((T.int64(1), T.int64(4), T.int64(10), T.int64(10)))
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(4), T.int64(10), T.int64(10)):
            with T.block("pad_temp"):
                vax0, vax1, vax2, vax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(data[vax0, vax1, vax2 - T.int64(1), vax3 - T.int64(1)])
                T.writes(pad_temp[vax0, vax1, vax2, vax3])
                pad_temp[vax0, vax1, vax2, vax3] = T.if_then_else(vax2 >= T.int64(1) and vax2 < T.int64(9) and (vax3 >= T.int64(1) and vax3 < T.int64(9)), data[vax0, vax1, vax2 - T.int64(1), vax3 - T.int64(1)], T.float32(0.0))
        for ax0, ax1, ax2, ax3, rc, rh, rw in T.grid(T.int64(1), T.int64(4), T.int64(8), T.int64(8), T.int64(4), T.int64(3), T.int64(3)):
            with T.block("conv2d_nchw"):
                vax0, vax1, vax2, vax3, vrc, vrh, vrw = T.axis.remap("SSSSRRR", [ax0, ax1, ax2, ax3, rc, rh, rw])
                T.reads(pad_temp[vax0, vrc, vax2 + vrh, vax3 + vrw], weight[vax1, vrc, vrh, vrw])
                T.writes(conv2d_nchw[vax0, vax1, vax2, vax3])
                with T.init():
                    conv2d_nchw[vax0, vax1, vax2, vax3] = T.float32(0.0)
                conv2d_nchw[vax0, vax1, vax2, vax3] = conv2d_nchw[vax0, vax1, vax2, vax3] + pad_temp[vax0, vrc, vax2 + vrh, vax3 + vrw] * weight[vax1, vrc, vrh, vrw]

    @T.prim_func
    def add(x1: T.Buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)), "float32"), x2: T.Buffer((T.int64(1), T.int64(4), T.int64(1), T.int64(1)), "float32"), add: T.Buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)), "float32")):
        T.func_attr({"global_symbol": "add", "tir.noalias": T.bool(True)})
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(4), T.int64(8), T.int64(8)):
            with T.block("add"):
                vax0, vax1, vax2, vax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(x1[T.int64(0), vax1, vax2, vax3], x2[T.int64(0), vax1, T.int64(0), T.int64(0)])
                T.writes(add[vax0, vax1, vax2, vax3])
                add[vax0, vax1, vax2, vax3] = x1[T.int64(0), vax1, vax2, vax3] + x2[T.int64(0), vax1, T.int64(0), T.int64(0)]

    @T.prim_func
    def add1(x1: T.Buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)), "float32"), x2: T.Buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)), "float32"), add: T.Buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)), "float32")):
        T.func_attr({"global_symbol": "add1", "tir.noalias": T.bool(True)})
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(4), T.int64(8), T.int64(8)):
            with T.block("add"):
                vax0, vax1, vax2, vax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(x1[T.int64(0), vax1, vax2, vax3], x2[T.int64(0), vax1, vax2, vax3])
                T.writes(add[vax0, vax1, vax2, vax3])
                add[vax0, vax1, vax2, vax3] = x1[T.int64(0), vax1, vax2, vax3] + x2[T.int64(0), vax1, vax2, vax3]

    @T.prim_func
    def fused_conv2d_add_relu(a: T.Buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)), "float32"), w1: T.Buffer((T.int64(4), T.int64(4), T.int64(3), T.int64(3)), "float32"), b: T.Buffer((T.int64(1), T.int64(4), T.int64(1), T.int64(1)), "float32"), relu: T.Buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)), "float32")):
        T.func_attr({"global_symbol": "fused_conv2d_add_relu", "tir.noalias": T.bool(True), "fused_ops": "conv2d+add+relu"})
        c1 = T.alloc_buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)))
        pad_temp = T.alloc_buffer((T.int64(1), T.int64(4), T.int64(10), T.int64(10)))
        c1b = T.alloc_buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)))
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(4), T.int64(10), T.int64(10)):
            with T.block("pad_temp"):
                vax0, vax1, vax2, vax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(a[vax0, vax1, vax2 - T.int64(1), vax3 - T.int64(1)])
                T.writes(pad_temp[vax0, vax1, vax2, vax3])
                pad_temp[vax0, vax1, vax2, vax3] = T.if_then_else(vax2 >= T.int64(1) and vax2 < T.int64(9) and (vax3 >= T.int64(1) and vax3 < T.int64(9)), a[vax0, vax1, vax2 - T.int64(1), vax3 - T.int64(1)], T.float32(0.0))
        for ax0, ax1, ax2, ax3, rc, rh, rw in T.grid(T.int64(1), T.int64(4), T.int64(8), T.int64(8), T.int64(4), T.int64(3), T.int64(3)):
            with T.block("conv2d_nchw"):
                vax0, vax1, vax2, vax3, vrc, vrh, vrw = T.axis.remap("SSSSRRR", [ax0, ax1, ax2, ax3, rc, rh, rw])
                T.reads(pad_temp[vax0, vrc, vax2 + vrh, vax3 + vrw], w1[vax1, vrc, vrh, vrw])
                T.writes(c1[vax0, vax1, vax2, vax3])
                with T.init():
                    c1[vax0, vax1, vax2, vax3] = T.float32(0.0)
                c1[vax0, vax1, vax2, vax3] = c1[vax0, vax1, vax2, vax3] + pad_temp[vax0, vrc, vax2 + vrh, vax3 + vrw] * w1[vax1, vrc, vrh, vrw]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(4), T.int64(8), T.int64(8)):
            with T.block("add"):
                vax0, vax1, vax2, vax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(c1[T.int64(0), vax1, vax2, vax3], b[T.int64(0), vax1, T.int64(0), T.int64(0)])
                T.writes(c1b[vax0, vax1, vax2, vax3])
                c1b[vax0, vax1, vax2, vax3] = c1[T.int64(0), vax1, vax2, vax3] + b[T.int64(0), vax1, T.int64(0), T.int64(0)]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(4), T.int64(8), T.int64(8)):
            with T.block("relu"):
                vax0, vax1, vax2, vax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(c1b[T.int64(0), vax1, vax2, vax3])
                T.writes(relu[vax0, vax1, vax2, vax3])
                relu[vax0, vax1, vax2, vax3] = T.max(c1b[T.int64(0), vax1, vax2, vax3], T.float32(0.0))

    @T.prim_func
    def fused_conv2d_add_relu1(r1: T.Buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)), "float32"), w2: T.Buffer((T.int64(4), T.int64(4), T.int64(3), T.int64(3)), "float32"), a: T.Buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)), "float32"), relu: T.Buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)), "float32")):
        T.func_attr({"global_symbol": "fused_conv2d_add_relu1", "tir.noalias": T.bool(True), "fused_ops": "conv2d+add+relu"})
        c2 = T.alloc_buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)))
        pad_temp = T.alloc_buffer((T.int64(1), T.int64(4), T.int64(10), T.int64(10)))
        s = T.alloc_buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)))
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(4), T.int64(10), T.int64(10)):
            with T.block("pad_temp"):
                vax0, vax1, vax2, vax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(r1[vax0, vax1, vax2 - T.int64(1), vax3 - T.int64(1)])
                T.writes(pad_temp[vax0, vax1, vax2, vax3])
                pad_temp[vax0, vax1, vax2, vax3] = T.if_then_else(vax2 >= T.int64(1) and vax2 < T.int64(9) and (vax3 >= T.int64(1) and vax3 < T.int64(9)), r1[vax0, vax1, vax2 - T.int64(1), vax3 - T.int64(1)], T.float32(0.0))
        for ax0, ax1, ax2, ax3, rc, rh, rw in T.grid(T.int64(1), T.int64(4), T.int64(8), T.int64(8), T.int64(4), T.int64(3), T.int64(3)):
            with T.block("conv2d_nchw"):
                vax0, vax1, vax2, vax3, vrc, vrh, vrw = T.axis.remap("SSSSRRR", [ax0, ax1, ax2, ax3, rc, rh, rw])
                T.reads(pad_temp[vax0, vrc, vax2 + vrh, vax3 + vrw], w2[vax1, vrc, vrh, vrw])
                T.writes(c2[vax0, vax1, vax2, vax3])
                with T.init():
                    c2[vax0, vax1, vax2, vax3] = T.float32(0.0)
                c2[vax0, vax1, vax2, vax3] = c2[vax0, vax1, vax2, vax3] + pad_temp[vax0, vrc, vax2 + vrh, vax3 + vrw] * w2[vax1, vrc, vrh, vrw]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(4), T.int64(8), T.int64(8)):
            with T.block("add"):
                vax0, vax1, vax2, vax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(c2[T.int64(0), vax1, vax2, vax3], a[T.int64(0), vax1, vax2, vax3])
                T.writes(s[vax0, vax1, vax2, vax3])
                s[vax0, vax1, vax2, vax3] = c2[T.int64(0), vax1, vax2, vax3] + a[T.int64(0), vax1, vax2, vax3]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(4), T.int64(8), T.int64(8)):
            with T.block("relu"):
                vax0, vax1, vax2, vax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(s[T.int64(0), vax1, vax2, vax3])
                T.writes(relu[vax0, vax1, vax2, vax3])
                relu[vax0, vax1, vax2, vax3] = T.max(s[T.int64(0), vax1, vax2, vax3], T.float32(0.0))
