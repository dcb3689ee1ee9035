# 33 directly nested loops: one more than a T.grid holds, so the printer
# must split the chain for its text to read back.
from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def deep(A: T.Buffer((2,), "float32")):
        for i0 in range(1):
            for i1 in range(1):
                for i2 in range(1):
                    for i3 in range(1):
                        for i4 in range(1):
                            for i5 in range(1):
                                for i6 in range(1):
                                    for i7 in range(1):
                                        for i8 in range(1):
                                            for i9 in range(1):
                                                for i10 in range(1):
                                                    for i11 in range(1):
                                                        for i12 in range(1):
                                                            for i13 in range(1):
                                                                for i14 in range(1):
                                                                    for i15 in range(1):
                                                                        for i16 in range(1):
                                                                            for i17 in range(1):
                                                                                for i18 in range(1):
                                                                                    for i19 in range(1):
                                                                                        for i20 in range(1):
                                                                                            for i21 in range(1):
                                                                                                for i22 in range(1):
                                                                                                    for i23 in range(1):
                                                                                                        for i24 in range(1):
                                                                                                            for i25 in range(1):
                                                                                                                for i26 in range(1):
                                                                                                                    for i27 in range(1):
                                                                                                                        for i28 in range(1):
                                                                                                                            for i29 in range(1):
                                                                                                                                for i30 in range(1):
                                                                                                                                    for i31 in range(1):
                                                                                                                                        for i32 in range(1):
                                                                                                                                            A[i0] = A[i0] + T.float32(1)
