# An elementwise producer and consumer over 100 elements, the consumer split
# by 8 (13 tiles, the last one partial): compute_at gives the producer's new
# loop a predicate, since its last tile would run past the domain.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def guard(A: T.Buffer((100,), "float32"), C: T.Buffer((100,), "float32")):
        T.func_attr({"global_symbol": "guard", "tir.noalias": True})
        B = T.alloc_buffer((100,), "float32")
        for i in range(100):
            with T.block("B"):
                vi = T.axis.spatial(100, i)
                B[vi] = A[vi] + T.float32(1)
        for i in range(100):
            with T.block("C"):
                vi = T.axis.spatial(100, i)
                C[vi] = B[vi] * B[vi]
