# error: 9:25: T.reinterpret cannot read float32 as int64
@I.ir_module
class Module:
    @T.prim_func
    def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "int64")):
        for i in range(4):
            with T.block("b"):
                vi = T.axis.spatial(4, i)
                B[vi] = T.reinterpret("int64", A[vi])
