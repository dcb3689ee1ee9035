"""_lib.py - loading libmlcc.so and declaring its C API (include/mlcc/mlcc.h).

The package is pure Python over ctypes: every call goes through the stable
C API, and every failure there comes back as a message that this module turns
into a Python exception.  The library is looked for, in order, at
$MLCC_LIBRARY, in the checkout's build folder (when the package is used
from the checkout), and beside this package (what `make python` puts there
for `pip install ./python`).
"""
import ctypes
import os
import threading
from ctypes import (CFUNCTYPE, POINTER, Structure, c_char_p, c_double, c_int, c_int32, c_int64,
                    c_size_t, c_uint8, c_uint16, c_uint64, c_void_p)


class Error(Exception):
    """A failure reported by the library; the message is the library's."""


class ParseError(Error):
    """Text that does not read as TVMScript."""


class ScheduleError(Error):
    """A schedule primitive refused; the schedule is left as it was."""


class BuildError(Error):
    """Compiling, loading or calling compiled code failed."""


def _candidates():
    env = os.environ.get("MLCC_LIBRARY")
    if env:
        yield env
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(here, "..", "..", "build", "libmlcc.so")
    yield os.path.join(here, "libmlcc.so")


def _load():
    tried = []
    for path in _candidates():
        if os.path.exists(path):
            return ctypes.CDLL(os.path.abspath(path))
        tried.append(path)
    raise ImportError("mlcc: libmlcc.so not found (run `make`, or set MLCC_LIBRARY); looked at "
                      + ", ".join(tried))


lib = _load()


class DLDataType(Structure):
    _fields_ = [("code", c_uint8), ("bits", c_uint8), ("lanes", c_uint16)]


class DLDevice(Structure):
    _fields_ = [("device_type", c_int32), ("device_id", c_int32)]


class DLTensor(Structure):
    _fields_ = [("data", c_void_p), ("device", DLDevice), ("ndim", c_int32), ("dtype", DLDataType),
                ("shape", POINTER(c_int64)), ("strides", POINTER(c_int64)), ("byte_offset", c_uint64)]


class Value(Structure):
    """MlccValue: a schedule argument or an op attribute."""


Value._fields_ = [("kind", c_int32), ("n", c_int32), ("i", c_int64), ("f", c_double), ("s", c_char_p),
                  ("items", POINTER(Value))]

(V_NONE, V_BLOCK, V_LOOP, V_INTRV, V_INT, V_FLOAT, V_BOOL, V_STR, V_LIST, V_LAMBDA) = range(10)



class TuneOptions(Structure):
    """MlccTuneOptions: zero fields take the tuner's defaults."""
    _fields_ = [("trials", c_int), ("batch", c_int), ("seed", c_uint64), ("threads", c_int),
                ("timeout_s", c_double), ("time_budget_s", c_double), ("progress", c_int)]


ExternFn = CFUNCTYPE(c_int32, POINTER(POINTER(DLTensor)), c_int32, c_void_p)

P = c_void_p
PP = POINTER(c_void_p)
S = c_char_p
I = c_int
# name: (result, argument types); a result of "str" is a malloc'd string the
# wrapper frees, "cstr" one the library owns.
_API = {
    "mlcc_api_version": (I, []),
    "mlcc_context_new": (P, []),
    "mlcc_context_free": (None, [P]),
    "mlcc_last_error": (S, [P]),
    "mlcc_free": (None, [P]),
    "mlcc_small_float_decode": (I, [S, P, c_int64, P]),
    "mlcc_module_parse": (P, [P, S, S, c_size_t]),
    "mlcc_module_load": (P, [P, S]),
    "mlcc_module_print": ("str", [P, P]),
    "mlcc_module_func_script": ("str", [P, P, S]),
    "mlcc_module_equal": (I, [P, P]),
    "mlcc_module_diff": ("str", [P, P, P]),
    "mlcc_module_hash": (c_uint64, [P]),
    "mlcc_module_num_funcs": (I, [P]),
    "mlcc_module_func_name": ("cstr", [P, I]),
    "mlcc_module_func_is_graph": (I, [P, I]),
    "mlcc_module_update": (P, [P, P, P]),
    "mlcc_module_remove": (P, [P, P, S]),
    "mlcc_module_rename": (P, [P, P, S, S]),
    "mlcc_schedule_num_prims": (I, []),
    "mlcc_schedule_prim_name": ("cstr", [I]),
    "mlcc_schedule_prim_params": ("cstr", [I]),
    "mlcc_schedule_new": (P, [P, P, S, c_uint64]),
    "mlcc_schedule_free": (None, [P]),
    "mlcc_schedule_apply": (I, [P, S, POINTER(Value), I, POINTER(Value), I, POINTER(c_int)]),
    "mlcc_schedule_module": (P, [P]),
    "mlcc_schedule_trace": ("str", [P]),
    "mlcc_schedule_run_script": (I, [P, S]),
    "mlcc_schedule_int_value": (I, [P, c_int64, POINTER(c_int64)]),
    "mlcc_expr_int": (P, [P, c_int64, S]),
    "mlcc_expr_float": (P, [P, c_double, S]),
    "mlcc_expr_var": (P, [P, S, S]),
    "mlcc_expr_binary": (P, [P, S, P, P]),
    "mlcc_expr_neg": (P, [P, P]),
    "mlcc_expr_select": (P, [P, P, P, P]),
    "mlcc_expr_cast": (P, [P, S, P]),
    "mlcc_expr_call": (P, [P, S, PP, I]),
    "mlcc_expr_dtype": ("cstr", [P, P]),
    "mlcc_expr_int_value": (I, [P, POINTER(c_int64)]),
    "mlcc_expr_print": ("str", [P]),
    "mlcc_te_var": (P, [P, S]),
    "mlcc_te_placeholder": (P, [P, S, PP, I, S]),
    "mlcc_te_read": (P, [P, P, PP, I]),
    "mlcc_te_compute": (P, [P, S, PP, I, PP, P]),
    "mlcc_te_reduce": (P, [P, S, PP, I, PP, S, P, PP, PP, I]),
    "mlcc_te_ndim": (I, [P]),
    "mlcc_te_dim": (P, [P, I]),
    "mlcc_te_dtype": ("cstr", [P, P]),
    "mlcc_te_name": ("cstr", [P]),
    "mlcc_te_create_prim_func": (P, [P, S, PP, I]),
    "mlcc_sinfo_tensor": (P, [P, PP, I, S]),
    "mlcc_sinfo_tuple": (P, [P, PP, I]),
    "mlcc_sinfo_object": (P, [P]),
    "mlcc_sinfo_kind": (I, [P]),
    "mlcc_sinfo_ndim": (I, [P]),
    "mlcc_sinfo_dim": (P, [P, I]),
    "mlcc_sinfo_dtype": ("cstr", [P, P]),
    "mlcc_sinfo_num_fields": (I, [P]),
    "mlcc_sinfo_field": (P, [P, I]),
    "mlcc_sinfo_print": ("str", [P]),
    "mlcc_g_var": (P, [P, S, P]),
    "mlcc_g_const": (P, [P, S, POINTER(c_int64), I, c_void_p, c_size_t]),
    "mlcc_g_tuple": (P, [P, PP, I]),
    "mlcc_g_get_item": (P, [P, P, I]),
    "mlcc_g_call_op": (P, [P, S, PP, I, POINTER(c_char_p), POINTER(Value), I]),
    "mlcc_g_call_tir": (P, [P, S, PP, I, P]),
    "mlcc_g_call_dps_packed": (P, [P, S, PP, I, P]),
    "mlcc_g_call_global": (P, [P, S, PP, I, P]),
    "mlcc_g_call_with_args": (P, [P, P, PP, I]),
    "mlcc_g_kind": (I, [P]),
    "mlcc_g_name": ("cstr", [P]),
    "mlcc_g_callee_kind": (I, [P]),
    "mlcc_g_num_args": (I, [P]),
    "mlcc_g_arg": (P, [P, I]),
    "mlcc_g_get_item_index": (I, [P]),
    "mlcc_g_sinfo": (P, [P]),
    "mlcc_g_print": ("str", [P]),
    "mlcc_fb_new": (P, [P, S, PP, I]),
    "mlcc_fb_free": (None, [P]),
    "mlcc_fb_set_params": (I, [P, PP, I]),
    "mlcc_fb_begin_block": (I, [P, I]),
    "mlcc_fb_emit": (P, [P, P, S, I]),
    "mlcc_fb_end_block": (I, [P]),
    "mlcc_fb_set_attr": (I, [P, S, POINTER(Value)]),
    "mlcc_fb_finish": (P, [P, P]),
    "mlcc_gfunc_num_params": (I, [P, S]),
    "mlcc_gfunc_param": (P, [P, S, I]),
    "mlcc_gfunc_num_blocks": (I, [P, S]),
    "mlcc_gfunc_block_is_dataflow": (I, [P, S, I]),
    "mlcc_gfunc_block_size": (I, [P, S, I]),
    "mlcc_gfunc_binding_var": (P, [P, S, I, I]),
    "mlcc_gfunc_binding_value": (P, [P, S, I, I]),
    "mlcc_gfunc_result": (P, [P, S]),
    "mlcc_op_count": (I, []),
    "mlcc_op_name": ("cstr", [I]),
    "mlcc_op_signature": ("cstr", [I]),
    "mlcc_pass_count": (I, []),
    "mlcc_pass_name": ("cstr", [I]),
    "mlcc_run_pass": (P, [P, P, S]),
    "mlcc_pipeline": (P, [P, P, S, S]),
    "mlcc_bind_params": (P, [P, P, S, POINTER(c_char_p), PP, I]),
    "mlcc_onnx_import": (P, [P, S, POINTER(c_char_p), POINTER(c_int), POINTER(c_int64), I]),
    "mlcc_build_kernels": (I, [P, P, S]),
    "mlcc_build_model": (I, [P, P, S, S]),
    "mlcc_build_kernels_for": (I, [P, P, S, S]),
    "mlcc_build_model_for": (I, [P, P, S, S, S]),
    "mlcc_tune": (I, [P, P, S, POINTER(TuneOptions)]),
    "mlcc_apply_records": (P, [P, P, POINTER(c_char_p), I, POINTER(c_int), POINTER(c_int)]),
    "mlcc_pipeline_for": (P, [P, P, S, POINTER(c_char_p), I, POINTER(c_int), POINTER(c_int)]),
    "mlcc_lib_load": (P, [P, S]),
    "mlcc_lib_free": (None, [P]),
    "mlcc_lib_is_model": (I, [P]),
    "mlcc_lib_num_funcs": (I, [P]),
    "mlcc_lib_func_name": ("cstr", [P, I]),
    "mlcc_lib_num_params": (I, [P, I]),
    "mlcc_lib_num_inputs": (I, [P, I]),
    "mlcc_lib_param_name": ("cstr", [P, I, I]),
    "mlcc_lib_param_dtype": ("cstr", [P, I, I]),
    "mlcc_lib_param_ndim": (I, [P, I, I]),
    "mlcc_lib_param_dim": (c_int64, [P, I, I, I]),
    "mlcc_lib_call": (I, [P, P, S, POINTER(POINTER(DLTensor)), I]),
    "mlcc_lib_run": (I, [P, P, POINTER(POINTER(DLTensor)), I, POINTER(POINTER(DLTensor)), I]),
    "mlcc_lib_time": (I, [P, P, S, POINTER(POINTER(DLTensor)), I, I, I, POINTER(c_double),
                          POINTER(c_double), POINTER(c_double)]),
    "mlcc_register_extern": (I, [P, S, ExternFn]),
}


class _Api:
    """The C API's functions as Python callables: bytes in, str out."""

    def __init__(self):
        for name, (res, args) in _API.items():
            fn = getattr(lib, name)
            fn.argtypes = args
            fn.restype = c_void_p if res in ("str",) else (c_char_p if res == "cstr" else res)
            setattr(self, name[len("mlcc_"):], self._wrap(fn, res))
        lib.mlcrt_set_error.restype = c_int
        lib.mlcrt_set_error.argtypes = [c_char_p, c_char_p]

    @staticmethod
    def _wrap(fn, res):
        if res == "str":
            def call(*a):
                p = fn(*_enc(a))
                if not p:
                    return None
                try:
                    return ctypes.string_at(p).decode("utf-8", "replace")
                finally:
                    lib.mlcc_free(ctypes.c_void_p(p))
            return call
        if res == "cstr":
            def call_c(*a):
                r = fn(*_enc(a))
                return r.decode("utf-8", "replace") if r is not None else None
            return call_c
        return lambda *a: fn(*_enc(a))


def _enc(args):
    return [a.encode("utf-8") if isinstance(a, str) else a for a in args]


api = _Api()
lock = threading.RLock()  # one thread in the compiler at a time


class Context:
    """Owns everything the library builds (modules, expressions, graph values).

    Objects keep their context alive; the default context serves the whole
    process, which is what interactive use wants."""

    def __init__(self):
        self.handle = api.context_new()
        self._free = api.context_free

    def __del__(self):
        h, self.handle = getattr(self, "handle", None), None
        if h and self._free:
            self._free(h)

    def error(self):
        msg = api.last_error(self.handle)
        msg = msg.decode("utf-8", "replace") if msg else "unknown error"
        return msg[len("error: "):] if msg.startswith("error: ") else msg

    def check_ptr(self, ptr, exc=Error):
        if not ptr:
            raise exc(self.error())
        return ptr

    def check_rc(self, rc, exc=Error):
        if rc != 0:
            raise exc(self.error())


_default = None


def default_context():
    global _default
    if _default is None:
        _default = Context()
    return _default


def ptr_array(ptrs):
    arr = (c_void_p * max(len(ptrs), 1))()
    for i, p in enumerate(ptrs):
        arr[i] = p
    return arr
