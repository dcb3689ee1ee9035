# The loop i_1 lies inside block "outer", a scope of its own: B cannot
# move into it.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def nested(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
        T.func_attr({"global_symbol": "nested", "tir.noalias": True})
        B = T.alloc_buffer((64,), "float32")
        for i in range(64):
            with T.block("B"):
                vi = T.axis.spatial(64, i)
                B[vi] = A[vi] + T.float32(1)
        for i_0 in range(8):
            with T.block("outer"):
                vo = T.axis.spatial(8, i_0)
                for i_1 in range(8):
                    with T.block("C"):
                        vi = T.axis.spatial(64, vo * 8 + i_1)
                        C[vi] = B[vi] * T.float32(2)
