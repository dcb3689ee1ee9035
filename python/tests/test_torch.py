"""Integration with PyTorch: a model traced with torch.fx and mapped onto
mlcc ops (from_fx), and one exported through torch.onnx (from_torch), both
built and compared with the model's own output."""
import numpy as np
import pytest

import mlcc

torch = pytest.importorskip("torch")
nn = torch.nn


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear0 = nn.Linear(784, 128, bias=True)
        self.relu = nn.ReLU()
        self.linear1 = nn.Linear(128, 10, bias=True)

    def forward(self, x):
        x = self.linear0(x)
        x = self.relu(x)
        x = self.linear1(x)
        return torch.softmax(x, dim=-1)


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, kernel_size=3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.pool = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(8, 8, kernel_size=3, stride=1, padding=1, bias=False)
        self.avg = nn.AdaptiveAvgPool2d((1, 1))
        self.flatten = nn.Flatten()
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        y = self.pool(torch.relu(self.bn(self.conv(x))))
        y = y + self.conv2(y)
        y = self.flatten(self.avg(y))
        return self.fc(y).view(-1, 2, 2)


def _check(model, shape, from_what):
    torch.manual_seed(0)
    model.eval()
    x = torch.randn(*shape)
    with torch.no_grad():
        want = model(x).numpy()
    if from_what == "fx":
        mod = mlcc.from_fx(torch.fx.symbolic_trace(model), [shape])
    else:
        mod = mlcc.from_torch(model, (x,))
    got = mlcc.build(mod)["main"](x.numpy())
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    return mod


def test_from_fx_mlp():
    torch.manual_seed(1)
    mod = _check(MLP(), (2, 784), "fx")
    text = mod.script()
    assert "R.matmul" in text and "R.nn.relu" in text and "R.nn.softmax" in text


def test_from_fx_convnet():
    torch.manual_seed(2)
    model = ConvNet()
    with torch.no_grad():  # batch norm statistics that are not the identity
        model.bn.running_mean.uniform_(-1, 1)
        model.bn.running_var.uniform_(0.5, 2)
    _check(model, (1, 3, 8, 8), "fx")


def test_from_fx_names_an_unsupported_node():
    class Odd(nn.Module):
        def forward(self, x):
            return torch.cumsum(x, 0)

    with pytest.raises(mlcc.Error, match="unsupported node 'cumsum'"):
        mlcc.from_fx(torch.fx.symbolic_trace(Odd()), [(4,)])


def test_from_torch_through_onnx():
    torch.manual_seed(3)
    _check(MLP(), (2, 784), "onnx")


def test_compile_an_onnx_file(tmp_path):
    torch.manual_seed(4)
    model = MLP().eval()
    x = torch.randn(3, 784)
    path = str(tmp_path / "mlp.onnx")
    torch.onnx.export(model, (x,), path, input_names=["x"], dynamic_axes={"x": {0: "batch"}}, opset_version=13)
    mod = mlcc.from_onnx(path, {"x": (3, 784)})
    assert mod.graph_func_names() == ["main"]
    lib = mlcc.compile(path, str(tmp_path / "out"), {"x": (3, 784)})
    assert (tmp_path / "out" / "model.h").exists()
    with torch.no_grad():
        want = model(x).numpy()
    np.testing.assert_allclose(lib["main"](x.numpy()), want, rtol=1e-4, atol=1e-5)
    with pytest.raises(mlcc.Error, match="no_such.onnx"):
        mlcc.from_onnx(str(tmp_path / "no_such.onnx"))
