# Found by the reader fuzzer: a unary plus on a string attribute value once
# read as an expression but printed as a string, so it did not round-trip.
from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def add(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32"), C: T.Buffer((1024,), "float32")):
        T.func_attr({"global_symbol":+ "add", "tir.noalias": T.bool(True)})
        for i_0 in T.thread_binding(2, thread="vthread.x"):
            for i_1 in range(512):
                with T.block("C"):
                    vi = T.axis.spatial(1024, i_0 * 512 + i_1)
                    T.reads(A[vi])
                    C[vi] = A[vi] + B[vi]
