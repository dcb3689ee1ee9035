"""Bad calls from Python raise Python exceptions carrying the library's
message; none of them may crash the interpreter (a crash fails the run)."""
import numpy as np
import pytest

import mlcc
from mlcc import te
from test_tensor_program import MM_RELU


def test_malformed_text():
    with pytest.raises(mlcc.ParseError, match=r"<text>:3:\d+: error:"):
        mlcc.parse("@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n    A[0] = = 1\n")
    with pytest.raises(mlcc.ParseError):
        mlcc.parse("")
    with pytest.raises(mlcc.ParseError, match="no_such_file.py"):
        mlcc.load("no_such_file.py")


def test_wrong_types():
    with pytest.raises(TypeError):
        mlcc.parse(42)
    with pytest.raises(TypeError):
        mlcc.Schedule("not a module")
    with pytest.raises(TypeError):
        mlcc.structural_equal(mlcc.parse(MM_RELU), "x")
    with pytest.raises(TypeError):
        mlcc.build(None)
    sch = mlcc.Schedule(mlcc.parse(MM_RELU))
    with pytest.raises(TypeError):
        sch.split(object(), factors=[None, 4])
    with pytest.raises(TypeError, match="unexpected keyword"):
        sch.get_block("Y", colour="red")


def test_wrong_handle_kinds_are_refused():
    sch = mlcc.Schedule(mlcc.parse(MM_RELU))
    b = sch.get_block("Y")
    with pytest.raises(mlcc.ScheduleError, match="loop"):
        sch.split(b, factors=[None, 4])
    with pytest.raises(mlcc.ScheduleError):
        sch.get_loops(12345)
    other = mlcc.Schedule(mlcc.parse(MM_RELU))
    with pytest.raises(mlcc.ScheduleError, match="another schedule"):
        other.get_loops(b)


def test_unknown_primitive():
    sch = mlcc.Schedule(mlcc.parse(MM_RELU))
    with pytest.raises(AttributeError):
        sch.frobnicate()
    with pytest.raises(mlcc.ScheduleError, match="frobnicate"):
        sch.replay('sch.frobnicate()')


def test_refused_schedule_keeps_state():
    sch = mlcc.Schedule(mlcc.parse(MM_RELU))
    i, j, k = sch.get_loops(sch.get_block("Y"))
    before = sch.mod
    with pytest.raises(mlcc.ScheduleError, match="reorder"):
        sch.reorder(k, k)
    with pytest.raises(mlcc.ScheduleError):
        sch.compute_at(sch.get_block("C"), k)
    assert mlcc.structural_equal(before, sch.mod)


def test_bad_te_and_graph_calls():
    A = te.placeholder((4, 4), "float32", name="A")
    with pytest.raises(mlcc.Error, match="indices|index"):
        te.compute((4,), lambda i: A[i], name="B")
    with pytest.raises(mlcc.Error, match="dtype"):
        te.placeholder((4,), "float33")
    x = mlcc.Var("x", mlcc.TensorStructInfo((2, 3), "float32"))
    y = mlcc.Var("y", mlcc.TensorStructInfo((4, 5), "float32"))
    with pytest.raises(mlcc.Error, match="matmul"):
        mlcc.op.matmul(x, y)
    with pytest.raises(TypeError, match="missing argument"):
        mlcc.op.add(x)
    with pytest.raises(mlcc.Error, match="unknown op"):
        mlcc.call_op("no.such.op", [x])


def test_bad_calls_of_compiled_code():
    rt = mlcc.build(mlcc.parse(MM_RELU))
    f = rt["mm_relu"]
    a = np.zeros((128, 128), "float32")
    with pytest.raises(mlcc.BuildError, match="argument 'B'"):
        f(a, np.zeros((128, 64), "float32"), a.copy())
    with pytest.raises(TypeError):
        f(a, a, a, a)
    with pytest.raises(ValueError, match="contiguous"):
        f(a, a, np.zeros((128, 256), "float32")[:, ::2])
    with pytest.raises(KeyError):
        rt["nope"]
    with pytest.raises(mlcc.BuildError, match="target"):
        mlcc.build(mlcc.parse(MM_RELU), target="rocm")
    with pytest.raises(mlcc.BuildError):
        mlcc.load_library("no/such/kernels.so")


def test_messages_are_one_clean_text():
    with pytest.raises(mlcc.Error, match="negative") as e:
        mlcc.TensorStructInfo((2, -3), "float32")
    assert not str(e.value).endswith("\n")
    x = mlcc.Var("x", mlcc.TensorStructInfo((2, 3), "float32"))
    with pytest.raises(mlcc.Error, match="not a tuple") as e:
        mlcc.get_item(x, 0)
    assert str(e.value) == str(e.value).strip()
