# error: 9:34: 'float33' is not a dtype
# the result dtype of an extern call must be one
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    for i in range(4):
        T.evaluate(T.call_extern("float33", "g", A.access_ptr("r")))
