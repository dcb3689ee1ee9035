from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def mm_relu(lhs: T.Buffer((128, 128), "float32"), rhs: T.Buffer((128, 128), "float32"),
                out: T.Buffer((128, 128), "float32")):
        T.func_attr({"global_symbol": "mm_relu", "tir.noalias": True})
        acc = T.alloc_buffer((128, 128), "float32")
        for x, y, r in T.grid(128, 128, 128):
            with T.block("Y"):
                row, col, red = T.axis.remap("SSR", [x, y, r])
                with T.init():
                    acc[row, col] = T.float32(0)
                acc[row, col] = acc[row, col] + lhs[row, red] * rhs[red, col]
        for a, b in T.grid(128, 128):
            with T.block("C"):
                p, q = T.axis.remap("SS", [a, b])
                out[p, q] = T.max(acc[p, q], T.float32(0))
