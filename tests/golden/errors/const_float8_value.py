# error: 7:41: R.const: 0.3 is not a float8_e4m3fn value
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float8_e4m3fn")):
        with R.dataflow():
            gv = R.add(x, R.const([0.5, 0.3], "float8_e4m3fn"))
            R.output(gv)
        return gv
