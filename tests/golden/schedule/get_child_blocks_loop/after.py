# One outer loop holding two blocks, each under its own inner loop.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((16, 8), "float32"), C: T.Buffer((16, 8), "float32")):
        B = T.alloc_buffer((16, 8))
        for i in range(16):
            for j in range(8):
                with T.block("B"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.block_attr({"child": 0})
                    B[vi, vj] = A[vi, vj] * T.float32(2)
            for j in T.serial(8, annotations={"loop_of_c": 1}):
                with T.block("C"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.block_attr({"child": 1})
                    C[vi, vj] = B[vi, vj] + T.float32(1)
