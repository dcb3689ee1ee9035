# The course's 16x16x16 tensor intrinsic: the description is a matmul block
# over buffers in the register scopes global.A_reg / global.B_reg (B indexed
# [j, k], as the course's matmul reads it); the implementation hands the
# tiles' addresses and row strides to an extern C function, tmm16, which
# the user supplies (tmm16.c beside this file).
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def tmm16_desc(a: T.handle, b: T.handle, c: T.handle) -> None:
        A = T.match_buffer(a, (16, 16), "float32", offset_factor=16, scope="global.A_reg")
        B = T.match_buffer(b, (16, 16), "float32", offset_factor=16, scope="global.B_reg")
        C = T.match_buffer(c, (16, 16), "float32", offset_factor=16, scope="global.accumulator")

        with T.block("root"):
            T.reads(C[0:16, 0:16], A[0:16, 0:16], B[0:16, 0:16])
            T.writes(C[0:16, 0:16])
            for i, j, k in T.grid(16, 16, 16):
                with T.block(""):
                    vii, vjj, vkk = T.axis.remap("SSR", [i, j, k])
                    C[vii, vjj] = C[vii, vjj] + A[vii, vkk] * B[vjj, vkk]

    @T.prim_func
    def tmm16_impl(a: T.handle, b: T.handle, c: T.handle) -> None:
        sa = T.int32()
        sb = T.int32()
        sc = T.int32()
        A = T.match_buffer(a, (16, 16), "float32", offset_factor=16, strides=[sa, 1], scope="global.A_reg")
        B = T.match_buffer(b, (16, 16), "float32", offset_factor=16, strides=[sb, 1], scope="global.B_reg")
        C = T.match_buffer(c, (16, 16), "float32", offset_factor=16, strides=[sc, 1], scope="global.accumulator")

        with T.block("root"):
            T.reads(C[0:16, 0:16], A[0:16, 0:16], B[0:16, 0:16])
            T.writes(C[0:16, 0:16])
            T.evaluate(
                T.call_extern(
                    "float32",
                    "tmm16",
                    C.access_ptr("w"),
                    A.access_ptr("r"),
                    B.access_ptr("r"),
                    sa,
                    sb,
                    sc,
                )
            )
