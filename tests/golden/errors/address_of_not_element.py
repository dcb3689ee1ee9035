# error: 9:48: T.address_of takes a buffer element such as A[0, 0]
# the address of a value that is not in a buffer
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    for i in range(4):
        T.evaluate(T.call_extern("int32", "g", T.address_of(i + 1)))
