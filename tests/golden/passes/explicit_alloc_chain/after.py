from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class Module:
    @T.prim_func
    def relu(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):
        for i, j in T.grid(4, 8):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = T.max(A[vi, vj], T.float32(0))

    @T.prim_func
    def split(A: T.Buffer((4, 8), "float32"), B: T.Buffer((2, 8), "float32"), C: T.Buffer((2, 8), "float32")):
        for i, j in T.grid(2, 8):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj]
        for i, j in T.grid(2, 8):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi + 2, vj]

    @R.function
    def main(x: R.Tensor((4, 8), "float32")) -> R.Tensor((2, 8), "float32"):
        cls = Module
        alloc: R.Tensor((4, 8), "float32") = R.builtin.alloc_tensor(R.shape([4, 8]), R.dtype("float32"), R.prim_value(T.int64(0)))
        _ = cls.relu(x, alloc)
        lv = alloc
        alloc1: R.Tensor((2, 8), "float32") = R.builtin.alloc_tensor(R.shape([2, 8]), R.dtype("float32"), R.prim_value(T.int64(0)))
        alloc2: R.Tensor((2, 8), "float32") = R.builtin.alloc_tensor(R.shape([2, 8]), R.dtype("float32"), R.prim_value(T.int64(0)))
        _ = cls.split(lv, alloc1, alloc2)
        t = (alloc1, alloc2)
        a = t[0]
        alloc3: R.Tensor((2, 8), "float32") = R.builtin.alloc_tensor(R.shape([2, 8]), R.dtype("float32"), R.prim_value(T.int64(0)))
        _ = R.call_packed("env.add", a, t[1], alloc3, sinfo_args=R.Object)
        gv = alloc3
        return gv
