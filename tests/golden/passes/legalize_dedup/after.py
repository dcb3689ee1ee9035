from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((2, 3), dtype="float32"), z: R.Tensor((3,), dtype="float32")) -> R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="float32")):
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.add, (x, y), out_sinfo=R.Tensor((2, 3), dtype="float32"))
            b = R.call_tir(cls.add, (a, y), out_sinfo=R.Tensor((2, 3), dtype="float32"))
            c = R.call_tir(cls.add1, (b, z), out_sinfo=R.Tensor((2, 3), dtype="float32"))
            d = R.call_tir(cls.relu, (c,), out_sinfo=R.Tensor((2, 3), dtype="float32"))
            e: R.Tensor((2, 3), dtype="float32") = R.builtin.alloc_tensor(R.shape([2, 3]), R.dtype("float32"), R.prim_value(T.int64(0)))
            R.output(d, e)
        return (d, e)

    @T.prim_func
    def add(x1: T.Buffer((T.int64(2), T.int64(3)), "float32"), x2: T.Buffer((T.int64(2), T.int64(3)), "float32"), add: T.Buffer((T.int64(2), T.int64(3)), "float32")):
        T.func_attr({"global_symbol": "add", "tir.noalias": T.bool(True)})
        for ax0, ax1 in T.grid(T.int64(2), T.int64(3)):
            with T.block("add"):
                vax0, vax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x1[vax0, vax1], x2[vax0, vax1])
                T.writes(add[vax0, vax1])
                add[vax0, vax1] = x1[vax0, vax1] + x2[vax0, vax1]

    @T.prim_func
    def add1(x1: T.Buffer((T.int64(2), T.int64(3)), "float32"), x2: T.Buffer((T.int64(3),), "float32"), add: T.Buffer((T.int64(2), T.int64(3)), "float32")):
        T.func_attr({"global_symbol": "add1", "tir.noalias": T.bool(True)})
        for ax0, ax1 in T.grid(T.int64(2), T.int64(3)):
            with T.block("add"):
                vax0, vax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x1[vax0, vax1], x2[vax1])
                T.writes(add[vax0, vax1])
                add[vax0, vax1] = x1[vax0, vax1] + x2[vax1]

    @T.prim_func
    def relu(data: T.Buffer((T.int64(2), T.int64(3)), "float32"), relu: T.Buffer((T.int64(2), T.int64(3)), "float32")):
        T.func_attr({"global_symbol": "relu", "tir.noalias": T.bool(True)})
        for ax0, ax1 in T.grid(T.int64(2), T.int64(3)):
            with T.block("relu"):
                vax0, vax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(data[vax0, vax1])
                T.writes(relu[vax0, vax1])
                relu[vax0, vax1] = T.max(data[vax0, vax1], T.float32(0.0))

