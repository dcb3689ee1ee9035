"""The graph-optimization chapter as Python passes over the library's graph
functions: the ewise_fma rewrite (a multiply followed by an add becomes one
fused call) and the dense + add fusion (a matmul followed by an add becomes
a call of a new primitive function, which fuse_tir turns into one loop
nest).  Each rewritten module is built and compared with numpy."""
import numpy as np

import mlcc
from mlcc import te

FMA = '''
@tvm.script.ir_module
class MyModule:
    @R.function
    def main(x: R.Tensor((3, 4), "float32"), y: R.Tensor((3, 4), "float32")):
        with R.dataflow():
            lv0 = R.multiply(x, y)
            gv0 = R.add(lv0, y)
            R.output(gv0)
        return gv0
'''


def te_ewise_fma(x1, x2, x3):
    return te.compute(x1.shape, lambda i, j: x1[i, j] * x2[i, j] + x3[i, j], name="ewise_fma")


class EwiseFMARewriter(mlcc.ExprMutator):
    add_op = mlcc.Op.get("relax.add")
    multiply_op = mlcc.Op.get("relax.multiply")

    def visit_call_(self, call):
        call = self.visit_expr_post_order(call)
        if call.op != self.add_op:
            return call
        value = self.lookup_binding(call.args[0])
        if not isinstance(value, mlcc.Call) or value.op != self.multiply_op:
            return call
        a, b = value.args
        c = call.args[1]
        # the fused operation as a tensor program of its own, called by call_tir
        x1, x2, x3 = (te.placeholder(v.struct_info.shape, v.struct_info.dtype, name=n)
                      for v, n in ((a, "x1"), (b, "x2"), (c, "x3")))
        gv = self.builder_.add_func(te.create_prim_func([x1, x2, x3, te_ewise_fma(x1, x2, x3)]), "ewise_fma")
        return mlcc.call_tir(gv, [a, b, c], call.struct_info)


def test_ewise_fma_rewrite():
    mod = mlcc.parse(FMA)
    new = EwiseFMARewriter().transform(mod)
    new = mlcc.transform.dead_code(new)
    text = new.script()
    assert "R.call_tir(cls.ewise_fma, (x, y, y)" in text, text
    assert "R.multiply" not in text and "R.add" not in text
    x = np.arange(12, dtype="float32").reshape(3, 4)
    y = np.linspace(-1, 1, 12, dtype="float32").reshape(3, 4)
    for m in (mod, new):
        np.testing.assert_allclose(mlcc.build(m)["main"](x, y), x * y + y, rtol=1e-6)


MLP = '''
@tvm.script.ir_module
class MLPModel:
    @R.function
    def main(x: R.Tensor((1, 784), "float32"), w0: R.Tensor((128, 784), "float32"),
             b0: R.Tensor((128,), "float32"), w1: R.Tensor((10, 128), "float32"),
             b1: R.Tensor((10,), "float32")):
        with R.dataflow():
            w0t = R.permute_dims(w0)
            lv0 = R.matmul(x, w0t)
            lv1 = R.add(lv0, b0)
            lv2 = R.nn.relu(lv1)
            w1t = R.permute_dims(w1)
            lv3 = R.matmul(lv2, w1t)
            lv4 = R.add(lv3, b1)
            R.output(lv4)
        return lv4
'''


class DenseAddFusor(mlcc.ExprMutator):
    """matmul + add into a function marked Primitive, as the course's
    FuseDenseAddPass does"""

    def __init__(self, mod):
        super().__init__(mod)
        self.mod_ = mod
        self.add_op = mlcc.Op.get("relax.add")
        self.dense_op = mlcc.Op.get("relax.matmul")
        self.counter = 0

    def visit_call_(self, call):
        call = self.visit_expr_post_order(call)
        if call.op != self.add_op:
            return call
        value = self.lookup_binding(call.args[0])
        if value is None or not isinstance(value, mlcc.Call) or value.op != self.dense_op:
            return call
        x, w = value.args
        b = call.args[1]
        px = mlcc.Var("x", x.struct_info)
        pw = mlcc.Var("w", w.struct_info)
        pb = mlcc.Var("b", b.struct_info)
        bb = mlcc.BlockBuilder()
        fn_name = "fused_dense_add%d" % self.counter
        self.counter += 1
        with bb.function(fn_name, [px, pw, pb], attrs={"Primitive": 1}):
            with bb.dataflow():
                lv0 = bb.emit(mlcc.op.matmul(px, pw))
                gv = bb.emit_output(mlcc.op.add(lv0, pb))
            bb.emit_func_output(gv)
        gvar = self.builder_.add_func(bb.get(), fn_name)
        return mlcc.call(gvar, [x, w, b], call.struct_info)


def test_dense_add_fusion():
    mod = mlcc.parse(MLP)
    fused = DenseAddFusor(mod).transform(mod)
    fused = mlcc.transform.dead_code(fused)
    assert {"fused_dense_add0", "fused_dense_add1"} <= set(fused.func_names())
    main = fused.func_script("main")
    assert "cls.fused_dense_add0(" in main and "R.add" not in main
    # legalize, then fuse_tir makes one prim func of each primitive function
    lowered = mlcc.transform.fuse_tir(mlcc.transform.legalize_ops(fused))
    assert set(lowered.prim_func_names()) >= {"fused_dense_add0", "fused_dense_add1"}, lowered.func_names()
    rng = np.random.default_rng(3)
    args = [rng.standard_normal(s).astype("float32") for s in ((1, 784), (128, 784), (128,), (10, 128), (10,))]
    x, w0, b0, w1, b1 = args
    want = np.maximum(x @ w0.T + b0, 0) @ w1.T + b1
    np.testing.assert_allclose(mlcc.build(fused)["main"](*args), want, rtol=1e-4, atol=1e-4)


def test_visitor_counts_ops():
    class Count(mlcc.ExprVisitor):
        def __init__(self):
            self.ops = []

        def visit_call_(self, call):
            if isinstance(call.op, mlcc.Op):
                self.ops.append(call.op.name)
            super().visit_call_(call)

    c = Count()
    c.visit_function(mlcc.parse(MLP), "main")
    assert c.ops.count("matmul") == 2 and c.ops.count("add") == 2 and "nn.relu" in c.ops


def test_functions_added_by_a_pass_get_fresh_names():
    """a function the pass adds never replaces one the module has"""
    taken = MLP.replace("class MLPModel:", '''class MLPModel:
    @R.function
    def fused_dense_add0(a: R.Tensor((2,), "float32")):
        return a
''')
    mod = mlcc.parse(taken)
    fused = DenseAddFusor(mod).transform(mod)
    names = fused.func_names()
    assert "fused_dense_add0" in names and "fused_dense_add01" in names
    assert "R.Tensor((2,)" in fused.func_script("fused_dense_add0")
