"""_values.py - Python values to MlccValue (schedule arguments, op
attributes) and back."""
import inspect
import numbers
import re

from . import _lib
from ._lib import Value


class _Keep:
    """Keeps the buffers of a converted value alive for one call."""

    def __init__(self):
        self.items = []


def lambda_text(fn):
    """the source text of a lambda (index maps are passed as text)"""
    try:
        src = inspect.getsource(fn)
    except (OSError, TypeError):
        raise TypeError("cannot read the source of %r; pass the index map as a string "
                        "such as \"lambda i, j: (j, i)\"" % (fn,))
    m = re.search(r"lambda\b", src)
    if not m:
        raise TypeError("an index map must be a lambda")
    text = src[m.start():]
    # cut at the end of the lambda: the first unbalanced closing bracket or a
    # comma at depth 0 after the body has started
    depth, colon_seen = 0, False
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                return text[:i].strip()
            depth -= 1
        elif ch == ":" and depth == 0:
            colon_seen = True
        elif ch in ",\n" and depth == 0 and colon_seen:
            return text[:i].strip()
    return text.strip()


def to_value(v, keep, handle_of=None, lambda_ok=False):
    """v as an MlccValue; handle_of(v) gives (kind, id) for handles or None"""
    out = Value()
    if handle_of is not None:
        h = handle_of(v)
        if h is not None:
            out.kind, out.i = h
            return out
    if v is None:
        out.kind = _lib.V_NONE
    elif isinstance(v, bool):
        out.kind, out.i = _lib.V_BOOL, int(v)
    elif isinstance(v, numbers.Integral):
        out.kind, out.i = _lib.V_INT, int(v)
    elif isinstance(v, numbers.Real):
        out.kind, out.f = _lib.V_FLOAT, float(v)
    elif isinstance(v, str):
        b = v.encode("utf-8")
        keep.items.append(b)
        out.kind, out.s = (_lib.V_LAMBDA if lambda_ok and v.lstrip().startswith("lambda") else _lib.V_STR), b
    elif callable(v) and lambda_ok:
        b = lambda_text(v).encode("utf-8")
        keep.items.append(b)
        out.kind, out.s = _lib.V_LAMBDA, b
    elif isinstance(v, (list, tuple)):
        arr = (Value * max(len(v), 1))()
        for k, item in enumerate(v):
            arr[k] = to_value(item, keep, handle_of, lambda_ok)
        keep.items.append(arr)
        out.kind, out.n, out.items = _lib.V_LIST, len(v), arr
    else:
        raise TypeError("cannot pass a %s here (want None, a bool, an int, a float, a str, "
                        "a handle or a list of them)" % type(v).__name__)
    return out
