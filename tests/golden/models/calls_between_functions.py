# sizes: n=5
# A module with several graph functions, as the course writes them: main
# calls a layer function twice and a head function once; each has its own
# dataflow block, and the layer's symbolic batch b, used in its call_tir's
# out_sinfo, is bound by each call to main's n.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def bias_relu(var_a: T.handle, bias: T.Buffer((16,), "float32"), var_out: T.handle):
        b = T.int64()
        A = T.match_buffer(var_a, (b, 16))
        Out = T.match_buffer(var_out, (b, 16))
        for i, j in T.grid(b, 16):
            with T.block("out"):
                vi, vj = T.axis.remap("SS", [i, j])
                Out[vi, vj] = T.max(A[vi, vj] + bias[vj], T.float32(0))

    @R.function
    def layer(x: R.Tensor(("b", 16), "float32"), w: R.Tensor((16, 16), "float32"),
              bias: R.Tensor((16,), "float32")) -> R.Tensor(("b", 16), "float32"):
        b = T.int64()
        cls = Module
        with R.dataflow():
            lv0 = R.matmul(x, w)
            gv = R.call_tir(cls.bias_relu, (lv0, bias), out_sinfo=R.Tensor((b, 16), "float32"))
            R.output(gv)
        return gv

    @R.function
    def head(x: R.Tensor(("b", 16), "float32"), w: R.Tensor((16, 4), "float32")):
        with R.dataflow():
            lv0 = R.matmul(x, w)
            lv1 = R.nn.softmax(lv0, axis=-1)
            R.output(lv1)
        return lv1

    @R.function
    def main(x: R.Tensor(("n", 16), "float32"), w0: R.Tensor((16, 16), "float32"), b0: R.Tensor((16,), "float32"),
             w1: R.Tensor((16, 16), "float32"), b1: R.Tensor((16,), "float32"), w2: R.Tensor((16, 4), "float32")):
        cls = Module
        with R.dataflow():
            h0 = cls.layer(x, w0, b0)
            h1 = cls.layer(h0, w1, b1)
            out = cls.head(h1, w2)
            gv = (out, h0)
            R.output(gv)
        return gv
