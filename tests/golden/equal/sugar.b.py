from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def mm(A: T.Buffer((64, 32), "float32"), B: T.Buffer((32, 16), "float32"),
           C: T.Buffer((64, 16), "float32")):
        for i in range(64):
            for j in T.serial(16):
                for k in T.serial(0, 32):
                    with T.block("C"):
                        vi = T.axis.spatial(64, i)
                        vj = T.axis.spatial(16, j)
                        vk = T.axis.reduce(32, k)
                        T.reads(A[vi, vk], B[vk, vj])
                        T.writes(C[vi, vj])
                        with T.init():
                            C[vi, vj] = T.float32(0)
                        C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
