# error: 15:9: duplicate function name 'f'
# two functions of the same name in one module
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class Module:
    @T.prim_func
    def f(A: T.Buffer((4,), "float32")):
        A[0] = T.float32(0)

    @T.prim_func
    def f(A: T.Buffer((4,), "float32")):
        A[0] = T.float32(1)
