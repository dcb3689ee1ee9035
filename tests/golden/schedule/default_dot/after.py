from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def dot(x1: T.Buffer((T.int64(64),), "float32"), x2: T.Buffer((T.int64(64),), "float32"), out: T.Buffer((), "float32")):
        T.func_attr({"global_symbol": "dot", "tir.noalias": T.bool(True)})
        out_rf = T.alloc_buffer((T.int64(8),))
        for k_0 in range(T.int64(8)):
            for k_1 in T.vectorized(T.int64(8)):
                with T.block("dot_rf"):
                    vk_1, vk_0 = T.axis.remap("SR", [k_1, k_0])
                    T.reads(x1[vk_0 * T.int64(8) + vk_1], x2[vk_0 * T.int64(8) + vk_1])
                    T.writes(out_rf[vk_1])
                    with T.init():
                        out_rf[vk_1] = T.float32(0.0)
                    out_rf[vk_1] = out_rf[vk_1] + x1[vk_0 * T.int64(8) + vk_1] * x2[vk_0 * T.int64(8) + vk_1]
        for k_1 in range(T.int64(8)):
            with T.block("dot"):
                vk_1 = T.axis.remap("R", [k_1])
                T.reads(out_rf[vk_1])
                T.writes(out[()])
                with T.init():
                    out[()] = T.float32(0.0)
                out[()] = out[()] + out_rf[vk_1]
