from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 784), dtype="float32"), w0: R.Tensor((784, 128), dtype="float32"), b0: R.Tensor((128,), dtype="float32"), w1: R.Tensor((128, 10), dtype="float32"), b1: R.Tensor((10,), dtype="float32")) -> R.Tensor((4, 10), dtype="float32"):
        cls = Module
        storage = R.memory.alloc_storage(R.shape([2048]), R.prim_value(T.int64(0)), R.str("global"), R.dtype("uint8"))
        alloc: R.Tensor((4, 128), dtype="float32") = R.memory.alloc_tensor(storage, R.prim_value(T.int64(0)), R.shape([4, 128]), R.dtype("float32"))
        _ = R.call_packed("env.matmul", x, w0, alloc, sinfo_args=R.Object)
        lv0 = alloc
        alloc_1: R.Tensor((4, 10), dtype="float32") = R.builtin.alloc_tensor(R.shape([4, 10]), R.dtype("float32"), R.prim_value(T.int64(0)))
        _ = cls.fused_add_relu_matmul_add(lv0, b0, w1, b1, alloc_1)
        out = alloc_1
        return out

    @T.prim_func
    def fused_add_relu_matmul_add(lv0: T.Buffer((T.int64(4), T.int64(128)), "float32"), b0: T.Buffer((T.int64(128),), "float32"), w1: T.Buffer((T.int64(128), T.int64(10)), "float32"), b1: T.Buffer((T.int64(10),), "float32"), add: T.Buffer((T.int64(4), T.int64(10)), "float32")):
        T.func_attr({"global_symbol": "fused_add_relu_matmul_add", "tir.noalias": T.bool(True), "fused_ops": "add+relu+matmul+add"})
        lv1 = T.alloc_buffer((T.int64(4), T.int64(128)))
        lv2 = T.alloc_buffer((T.int64(4), T.int64(128)))
        lv3 = T.alloc_buffer((T.int64(4), T.int64(10)))
        for ax0, ax1 in T.grid(T.int64(4), T.int64(128)):
            with T.block("add"):
                vax0, vax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(lv0[vax0, vax1], b0[vax1])
                T.writes(lv1[vax0, vax1])
                lv1[vax0, vax1] = lv0[vax0, vax1] + b0[vax1]
        for ax0, ax1 in T.grid(T.int64(4), T.int64(128)):
            with T.block("relu"):
                vax0, vax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(lv1[vax0, vax1])
                T.writes(lv2[vax0, vax1])
                lv2[vax0, vax1] = T.max(lv1[vax0, vax1], T.float32(0.0))
        for ax0, ax1, k in T.grid(T.int64(4), T.int64(10), T.int64(128)):
            with T.block("matmul"):
                vax0, vax1, vk = T.axis.remap("SSR", [ax0, ax1, k])
                T.reads(lv2[vax0, vk], w1[vk, vax1])
                T.writes(lv3[vax0, vax1])
                with T.init():
                    lv3[vax0, vax1] = T.float32(0.0)
                lv3[vax0, vax1] = lv3[vax0, vax1] + lv2[vax0, vk] * w1[vk, vax1]
        for ax0, ax1 in T.grid(T.int64(4), T.int64(10)):
            with T.block("add_1"):
                vax0, vax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(lv3[vax0, vax1], b1[vax1])
                T.writes(add[vax0, vax1])
                add[vax0, vax1] = lv3[vax0, vax1] + b1[vax1]

