# A model whose outputs are 16- and 8-bit floats: `mlcc run` prints their values.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tuple(R.Tensor((3,), "float16"), R.Tensor((3,), "bfloat16"), R.Tensor((3,), "float8_e4m3fn")):
        with R.dataflow():
            a = R.astype(R.add(R.multiply(x, R.const(0, "float32")), R.const(1.5, "float32")), "float16")
            b = R.astype(R.add(R.multiply(x, R.const(0, "float32")), R.const(-2.25, "float32")), "bfloat16")
            c = R.astype(R.add(R.multiply(x, R.const(0, "float32")), R.const(0.375, "float32")), "float8_e4m3fn")
            gv = (a, b, c)
            R.output(gv)
        return gv
