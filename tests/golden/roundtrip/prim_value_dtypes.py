# R.prim_value keeps the dtype of what it holds: a bare integer reads as int64,
# so an int32 (or any other width) must print with its T. constructor to read
# back the same (a fuzzer find: int32 printed bare and came back as int64).
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        a: R.Tensor((4,), dtype="float32") = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), R.prim_value(T.int32(0)))
        b: R.Tensor((4,), dtype="float32") = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), R.prim_value(T.int64(0)))
        c: R.Tensor((4,), dtype="float32") = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), R.prim_value(T.int8(3)))
        return x
