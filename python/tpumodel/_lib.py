"""Loading build/lib/libtpu.so (sim/py/tpu_py.c) with ctypes.

The library is found, in this order, at $TPUMODEL_LIB, next to this package
(a copy of libtpu.so in python/tpumodel/), then at build/lib/libtpu.so of
the checkout the package lives in (python/tpumodel/ -> ../../build/lib/).
`make pylib` builds it.
"""
import ctypes
import os

ABI = 1                 # TPY_ABI of sim/py/tpu_py.c

ERRLEN = 65536          # room for the assembler's messages (at most 50 lines)


class TpuError(Exception):
    """An error of the C model or its tools; the message is the C message."""


def _candidates():
    env = os.environ.get("TPUMODEL_LIB")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    return [os.path.join(here, "libtpu.so"),
            os.path.join(here, os.pardir, os.pardir, "build", "lib", "libtpu.so")]


def _load():
    tried = []
    for path in _candidates():
        path = os.path.normpath(path)
        if os.path.exists(path):
            lib = ctypes.CDLL(path)
            if lib.tpy_abi() != ABI:
                raise ImportError("%s has interface %d, the package wants %d: rebuild it "
                                  "with 'make pylib'" % (path, lib.tpy_abi(), ABI))
            lib._path = path
            return lib
        tried.append(path)
    raise ImportError("tpumodel: libtpu.so not found (looked at %s): build it with "
                      "'make pylib' in the checkout, or set TPUMODEL_LIB" % ", ".join(tried))


lib = _load()
path = lib._path

c_char_pp = ctypes.POINTER(ctypes.c_char_p)
vp = ctypes.c_void_p
sz = ctypes.c_size_t
u64 = ctypes.c_uint64
u32 = ctypes.c_uint32
i64 = ctypes.c_int64
ci = ctypes.c_int
cu = ctypes.c_uint
cs = ctypes.c_char_p
u64p = ctypes.POINTER(u64)
dp = ctypes.POINTER(ctypes.c_double)

_PROTOS = {
    # name: (restype, argtypes)
    "tpy_abi": (ci, []),
    "tpy_free": (None, [vp]),
    "tpy_config_new": (vp, [cs, vp, c_char_pp, cu, cs, sz]),
    "tpy_config_free": (None, [vp]),
    "tpy_config_text": (vp, [vp]),
    "tpy_presets": (vp, []),
    "tpy_assemble": (vp, [cs, sz, cs, vp, c_char_pp, cu, c_char_pp, cu, cs, sz]),
    "tpy_obj_read": (vp, [cs, cs, sz]),
    "tpy_obj_parse": (vp, [cs, sz, cs, sz]),
    "tpy_obj_free": (None, [vp]),
    "tpy_obj_serialize": (vp, [vp, ctypes.POINTER(sz)]),
    "tpy_obj_nsyms": (sz, [vp]),
    "tpy_obj_sym": (cs, [vp, sz, ctypes.POINTER(ci), u64p]),
    "tpy_obj_ntext": (sz, [vp]),
    "tpy_obj_shape": (None, [vp, ctypes.POINTER(u32)]),
    "tpy_obj_nexpects": (sz, [vp]),
    "tpy_obj_add_data": (ci, [vp, ci, u64, vp, u64]),
    "tpy_obj_add_expect_matmul": (ci, [vp, u64, u64, u64, u64, u64, u64]),
    "tpy_system_new": (vp, [vp, cu, cs, cu, cu, cu, cu, cs, sz]),
    "tpy_system_free": (None, [vp]),
    "tpy_system_topology": (cs, [vp]),
    "tpy_system_ncores": (cu, [vp]),
    "tpy_system_config": (vp, [vp]),
    "tpy_system_load": (ci, [vp, vp, cs, sz]),
    "tpy_system_run": (ci, [vp, u64]),
    "tpy_system_step": (ci, [vp, u64]),
    "tpy_system_cycle": (u64, [vp]),
    "tpy_system_error": (cs, [vp]),
    "tpy_system_windows": (u64, [vp]),
    "tpy_report_json": (vp, [vp, vp, cs, ci, ci, u64]),
    "tpy_mem_read": (ci, [vp, cu, ci, u64, vp, sz, cs, sz]),
    "tpy_mem_write": (ci, [vp, cu, ci, u64, vp, sz, cs, sz]),
    "tpy_seq_view": (ci, [vp, cu, u64p, ctypes.POINTER(ci), vp, vp, cs, sz, cs, sz]),
    "tpy_mxu_cells": (ci, [vp, cu, cu, vp, vp, vp, vp, vp, vp, vp, vp, vp, cs, sz]),
    "tpy_vreg": (ci, [vp, cu, cu, vp, cs, sz]),
    "tpy_stats_json": (vp, [vp, cu, cs, sz]),
    "tpy_probe_json": (vp, [vp, cu, cs, sz]),
    "tpy_bf16_from_f32": (None, [vp, vp, sz]),
    "tpy_f32_from_bf16": (None, [vp, vp, sz]),
    "tpy_ref_matmul": (ci, [vp, vp, vp, u64, u64, u64, cu, cs, sz]),
    "tpy_gemm": (ci, [vp, cs, u64, u64, u64, ci, ci, u64, u64, u64, ctypes.POINTER(vp), u64p,
                      dp, cs, sz, cs, sz]),
}

for _name, (_res, _args) in _PROTOS.items():
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args


def errbuf():
    return ctypes.create_string_buffer(ERRLEN)


def raise_err(buf, what=None):
    msg = buf.value.decode("utf-8", "replace") or "unknown error"
    raise TpuError("%s: %s" % (what, msg) if what else msg)


def take_string(ptr):
    """A malloc'ed C string from the library as str, freed."""
    if not ptr:
        raise TpuError("out of memory")
    try:
        return ctypes.string_at(ptr).decode("utf-8", "replace")
    finally:
        lib.tpy_free(ptr)


def cstrings(items):
    """A char *[] of the strings (and the list keeping them alive)."""
    enc = [s.encode() if isinstance(s, str) else bytes(s) for s in items]
    arr = (ctypes.c_char_p * max(len(enc), 1))(*enc)
    return arr, enc
