from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 784), dtype="float32"), w0: R.Tensor((784, 128), dtype="float32"), b0: R.Tensor((128,), dtype="float32"), w1: R.Tensor((128, 10), dtype="float32"), b1: R.Tensor((10,), dtype="float32")) -> R.Tensor((4, 10), dtype="float32"):
        cls = Module
        storage = R.memory.alloc_storage(R.shape([4096]), R.prim_value(T.int64(0)), R.str("global"), R.dtype("uint8"))
        alloc: R.Tensor((4, 128), dtype="float32") = R.memory.alloc_tensor(storage, R.prim_value(T.int64(0)), R.shape([4, 128]), R.dtype("float32"))
        _ = R.call_packed("env.matmul", x, w0, alloc, sinfo_args=R.Object)
        lv0 = alloc
        alloc_1: R.Tensor((4, 128), dtype="float32") = R.memory.alloc_tensor(storage, R.prim_value(T.int64(2048)), R.shape([4, 128]), R.dtype("float32"))
        _ = cls.add(lv0, b0, alloc_1)
        lv1 = alloc_1
        alloc_2: R.Tensor((4, 128), dtype="float32") = R.memory.alloc_tensor(storage, R.prim_value(T.int64(0)), R.shape([4, 128]), R.dtype("float32"))
        _ = cls.relu(lv1, alloc_2)
        lv2 = alloc_2
        alloc_3: R.Tensor((4, 10), dtype="float32") = R.memory.alloc_tensor(storage, R.prim_value(T.int64(2048)), R.shape([4, 10]), R.dtype("float32"))
        _ = cls.matmul(lv2, w1, alloc_3)
        lv3 = alloc_3
        alloc_4: R.Tensor((4, 10), dtype="float32") = R.builtin.alloc_tensor(R.shape([4, 10]), R.dtype("float32"), R.prim_value(T.int64(0)))
        _ = cls.add1(lv3, b1, alloc_4)
        out = alloc_4
        return out

    @T.prim_func
    def add(x1: T.Buffer((T.int64(4), T.int64(128)), "float32"), x2: T.Buffer((T.int64(128),), "float32"), add: T.Buffer((T.int64(4), T.int64(128)), "float32")):
        T.func_attr({"global_symbol": "add", "tir.noalias": T.bool(True)})
        for ax0, ax1 in T.grid(T.int64(4), T.int64(128)):
            with T.block("add"):
                vax0, vax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x1[vax0, vax1], x2[vax1])
                T.writes(add[vax0, vax1])
                add[vax0, vax1] = x1[vax0, vax1] + x2[vax1]

    @T.prim_func
    def relu(data: T.Buffer((T.int64(4), T.int64(128)), "float32"), relu: T.Buffer((T.int64(4), T.int64(128)), "float32")):
        T.func_attr({"global_symbol": "relu", "tir.noalias": T.bool(True)})
        for ax0, ax1 in T.grid(T.int64(4), T.int64(128)):
            with T.block("relu"):
                vax0, vax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(data[vax0, vax1])
                T.writes(relu[vax0, vax1])
                relu[vax0, vax1] = T.max(data[vax0, vax1], T.float32(0.0))

    @T.prim_func
    def matmul(x1: T.Buffer((T.int64(4), T.int64(128)), "float32"), x2: T.Buffer((T.int64(128), T.int64(10)), "float32"), matmul: T.Buffer((T.int64(4), T.int64(10)), "float32")):
        T.func_attr({"global_symbol": "matmul", "tir.noalias": T.bool(True)})
        for ax0, ax1, k in T.grid(T.int64(4), T.int64(10), T.int64(128)):
            with T.block("matmul"):
                vax0, vax1, vk = T.axis.remap("SSR", [ax0, ax1, k])
                T.reads(x1[vax0, vk], x2[vk, vax1])
                T.writes(matmul[vax0, vax1])
                with T.init():
                    matmul[vax0, vax1] = T.float32(0.0)
                matmul[vax0, vax1] = matmul[vax0, vax1] + x1[vax0, vk] * x2[vk, vax1]

    @T.prim_func
    def add1(x1: T.Buffer((T.int64(4), T.int64(10)), "float32"), x2: T.Buffer((T.int64(10),), "float32"), add: T.Buffer((T.int64(4), T.int64(10)), "float32")):
        T.func_attr({"global_symbol": "add1", "tir.noalias": T.bool(True)})
        for ax0, ax1 in T.grid(T.int64(4), T.int64(10)):
            with T.block("add"):
                vax0, vax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x1[vax0, vax1], x2[vax1])
                T.writes(add[vax0, vax1])
                add[vax0, vax1] = x1[vax0, vax1] + x2[vax1]
