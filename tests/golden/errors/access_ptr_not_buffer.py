# error: 9:48: 'i' is not a buffer
# access_ptr is a method of buffers only
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    for i in range(4):
        T.evaluate(T.call_extern("int32", "g", i.access_ptr("r")))
