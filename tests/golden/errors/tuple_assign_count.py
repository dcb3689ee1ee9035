# error: 8:12: unpack
# two names assigned from one value
from tvm.script import tir as T


@T.prim_func
def f(a: T.handle):
    n, m = T.int64()
    A = T.match_buffer(a, (n, m), "float32")
    A[0, 0] = T.float32(0)
