# error: 9:1: indent
# a class whose body is not indented
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    A[0] = T.float32(0)
