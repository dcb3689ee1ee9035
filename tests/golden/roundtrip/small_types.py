# The 8- and 4-bit floats, the sub-byte integers and T.reinterpret, in
# buffers, casts, immediates, graph struct info, constants and ops.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def small(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float8_e4m3fn"), C: T.Buffer((8,), "int4"),
              D: T.Buffer((8,), "float4_e2m1fn"), E: T.Buffer((8,), "int32")):
        for i in range(8):
            with T.block("b"):
                vi = T.axis.spatial(8, i)
                B[vi] = T.Cast("float8_e4m3fn", A[vi]) * T.float8_e4m3fn(0.5)
                C[vi] = T.Cast("int4", A[vi]) + T.int4(3)
                D[vi] = T.Cast("float4_e2m1fn", T.Cast("float8_e5m2fnuz", A[vi]))
                E[vi] = T.reinterpret("int32", A[vi])

    @R.function
    def main(x: R.Tensor((2, 3), "float32"), q: R.Tensor((4,), "uint2")):
        with R.dataflow():
            lv0 = R.astype(x, "float8_e5m2")
            lv1 = R.bitcast(x, "uint32")
            lv2 = R.add(R.astype(lv0, "float8_e8m0fnu"), R.const([1.0, 0.5, 4.0], "float8_e8m0fnu"))
            gv = (lv1, lv2, q)
            R.output(gv)
        return gv
