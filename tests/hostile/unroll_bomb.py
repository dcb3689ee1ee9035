# five nested loops of 64 all marked unrolled: 64^5 copies if each level
# were expanded; lowering keeps the outer ones as loops, so this builds
from tvm.script import tir as T
@T.prim_func
def unroll_bomb(A: T.Buffer((64, 64, 64, 64, 64), "float32")):
    for i in T.unroll(64):
        for j in T.unroll(64):
            for k in T.unroll(64):
                for l in T.unroll(64):
                    for m in T.unroll(64):
                        with T.block("A"):
                            vi, vj, vk, vl, vm = T.axis.remap("SSSSS", [i, j, k, l, m])
                            A[vi, vj, vk, vl, vm] = A[vi, vj, vk, vl, vm] + T.float32(1)
