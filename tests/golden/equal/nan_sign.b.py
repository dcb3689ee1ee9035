from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((6,), "float32")):
    A[0] = T.float32("nan")
