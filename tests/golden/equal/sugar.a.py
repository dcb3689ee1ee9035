# expect: equal
# The same program written with and without sugar: T.grid against nested
# range loops, T.axis.remap against one T.axis.spatial/reduce per var, and
# explicit T.reads/T.writes against regions the reader infers.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def mm(A: T.Buffer((64, 32), "float32"), B: T.Buffer((32, 16), "float32"),
           C: T.Buffer((64, 16), "float32")):
        for i, j, k in T.grid(64, 16, 32):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
