# Unroll pragmas as the field's tuner writes them on a block's outer loop:
# under pragma_auto_unroll_max_step = 16, the (j, k) nest of B (16 steps) is
# expanded; C's (j2, k2) nest (32 steps) keeps its j2 loop, only k2 (4
# steps) is expanded.
from tvm.script import tir as T


@T.prim_func
def auto_unroll(A: T.Buffer((64,), "float32"), B: T.Buffer((32,), "float32"), C: T.Buffer((64,), "float32")):
    for i in T.serial(2, annotations={"pragma_auto_unroll_max_step": 16, "pragma_unroll_explicit": 1}):
        for j, k in T.grid(4, 4):
            with T.block("B"):
                vi, vj, vk = T.axis.remap("SSS", [i, j, k])
                B[vi * 16 + vj * 4 + vk] = A[vi * 32 + vj * 4 + vk] * T.float32(2)
        for j2, k2 in T.grid(8, 4):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSS", [i, j2, k2])
                C[vi * 32 + vj * 4 + vk] = A[vi * 32 + vj * 4 + vk] + B[vi * 16 + vj % 4 * 4 + vk]
