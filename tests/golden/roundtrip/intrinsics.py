# A single prim func (no module class) that uses the expression vocabulary:
# a predicated block (T.where), math intrinsics, T.if_then_else, T.Select,
# T.Cast, floor division and modulo, and typed immediates of several dtypes.
from tvm.script import tir as T


@T.prim_func
def elementwise(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "int32"),
                C: T.Buffer((128,), "float32"), D: T.Buffer((128,), "int32"),
                E: T.Buffer((128,), "float64")):
    T.func_attr({"global_symbol": "elementwise", "tir.noalias": True})
    for i_0, i_1 in T.grid(13, 10):
        with T.block("C"):
            vi = T.axis.spatial(128, i_0 * 10 + i_1)
            T.where(i_0 * 10 + i_1 < 128)
            C[vi] = T.if_then_else(A[vi] > T.float32(0), T.exp(A[vi]) + T.log(A[vi]), T.sqrt(T.fabs(A[vi]))) + T.tanh(A[vi]) * T.erf(A[vi]) - T.sigmoid(A[vi]) + T.pow(A[vi], T.float32(2)) + T.floor(A[vi] * T.float32(0.5)) + T.Cast("float32", B[vi])
    for i in range(128):
        with T.block("D"):
            vi = T.axis.spatial(128, i)
            D[vi] = T.Select(B[vi] % 2 == 0, B[vi] // 2, B[vi] * 3 + 1) + T.Cast("int32", T.int64(7)) + T.Cast("int32", T.int8(-3)) + T.Cast("int32", T.uint8(255))
    for i in range(128):
        with T.block("E"):
            vi = T.axis.spatial(128, i)
            E[vi] = T.Select(T.bool(True) and vi // 16 != 3, T.Cast("float64", A[vi]) * T.float64(0.1), T.float64(-2.5e-10))
