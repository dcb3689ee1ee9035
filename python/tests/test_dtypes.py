"""Outputs of the element types numpy lacks come back as numbers: bfloat16
and the 8- and 4-bit floats decoded into float32, int4 as int8.  The values
are constants of the module, exactly representable in each type."""
import numpy as np

import mlcc

SMALL = '''
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")):
        with R.dataflow():
            z = R.multiply(x, R.const(0, "float32"))
            a = R.astype(R.add(z, R.const(-2.25, "float32")), "bfloat16")
            b = R.astype(R.add(z, R.const(0.375, "float32")), "float8_e4m3fn")
            c = R.astype(R.add(z, R.const(-6, "float32")), "float4_e2m1fn")
            d = R.astype(R.add(z, R.const(-3, "float32")), "int4")
            h = R.astype(R.add(z, R.const(1.5, "float32")), "float16")
            gv = (a, b, c, d, h)
            R.output(gv)
        return gv
'''


def test_small_types_come_back_as_numbers():
    out = mlcc.build(mlcc.parse(SMALL))["main"](np.arange(3, dtype=np.float32))
    want = [(-2.25, np.float32), (0.375, np.float32), (-6.0, np.float32), (-3, np.int8), (1.5, np.float16)]
    assert len(out) == len(want)
    for arr, (value, dtype) in zip(out, want):
        assert arr.dtype == dtype and arr.shape == (3,)
        assert (arr == value).all(), arr
