# Default rules: a dot product into a 0-d buffer, as legalization writes a
# matmul of two vectors (the output has no innermost index to vectorize;
# the long reduction is rfactor'd into lanes).
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def dot(x1: T.Buffer((T.int64(64),), "float32"), x2: T.Buffer((T.int64(64),), "float32"), out: T.Buffer((), "float32")):
        T.func_attr({"global_symbol": "dot", "tir.noalias": T.bool(True)})
        for k in range(T.int64(64)):
            with T.block("dot"):
                vk = T.axis.remap("R", [k])
                with T.init():
                    out[()] = T.float32(0.0)
                out[()] = out[()] + x1[vk] * x2[vk]
