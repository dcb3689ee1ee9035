# Equal op calls share one prim func; a call of the same op on other shapes
# gets the next name (add1); names follow the op's last component (relu).
# Allocations stay as they are: they have no tensor-expression definition.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32"), z: R.Tensor((3,), "float32")):
        with R.dataflow():
            a = R.add(x, y)
            b = R.add(a, y)
            c = R.add(b, z)
            d = R.nn.relu(c)
            e = R.builtin.alloc_tensor(R.shape([2, 3]), R.dtype("float32"), R.prim_value(0))
            R.output(d, e)
        return (d, e)
