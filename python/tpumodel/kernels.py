"""The kernel generator (sim/kernels/, docs/workloads.md) from Python, and
the model's own reference arithmetic (cmodel/include/tpu/ref.h, cmodel/include/tpu/fp.h)."""
import ctypes

import numpy as np

from . import _lib
from ._core import DEFAULT_MAX_CYCLES, SPACES, Config, Program, System, _config, assemble
from ._lib import TpuError, lib
from .bf16 import f32_to_bf16

DTYPES = {"bf16": 0, "int8": 1, "w8": 2}

# The order of tpy_gemm's info[] (sim/py/tpu_py.c).
_INFO = ("kp", "np", "kq", "kt", "nt", "mxus", "tm", "mtiles", "groups", "kb", "ring", "xbufs",
         "x_row", "w_row_hbm", "h_x", "h_w", "h_y", "hbm_need", "vmem_need", "x_bytes",
         "w_bytes", "y_bytes")
_COST = ("predicted_cycles", "t_math", "t_memory", "t_issue", "efficiency", "instructions")


def model_bf16(bits):
    """The model's tpu_bf16_from_f32 on an array of fp32 bit patterns (or
    float32 values): bf16 bits, uint16."""
    a = np.asarray(bits)
    u = np.ascontiguousarray(a if a.dtype == np.uint32 else a.astype(np.float32).view(np.uint32))
    out = np.empty(u.shape, np.uint16)
    lib.tpy_bf16_from_f32(u.ctypes.data, out.ctypes.data, u.size)
    return out


def model_f32(bits):
    """The model's tpu_f32_from_bf16 on bf16 bit patterns: fp32 bits, uint32."""
    b = np.ascontiguousarray(np.asarray(bits, dtype=np.uint16))
    out = np.empty(b.shape, np.uint32)
    lib.tpy_f32_from_bf16(b.ctypes.data, out.ctypes.data, b.size)
    return out


def ref_matmul(x_bits, w_bits, tile):
    """The model's reference matmul (tpu_ref_matmul, what `.expect matmul`
    checks against): bf16 bits X[B,D] . W[D,F] -> fp32 Y[B,F] (float32),
    K-tiles of `tile` rows (the MXU size) summed in the MXU's order."""
    x = np.ascontiguousarray(x_bits, dtype=np.uint16)
    w = np.ascontiguousarray(w_bits, dtype=np.uint16)
    if x.ndim != 2 or w.ndim != 2 or x.shape[1] != w.shape[0]:
        raise TpuError("ref_matmul: shapes %s and %s do not multiply" % (x.shape, w.shape))
    b, d = x.shape
    f = w.shape[1]
    y = np.zeros((b, f), np.uint32)
    err = _lib.errbuf()
    if lib.tpy_ref_matmul(x.ctypes.data, w.ctypes.data, y.ctypes.data, b, d, f, int(tile),
                          err, len(err)):
        _lib.raise_err(err)
    return y.view(np.float32)


def _size(name, v):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TpuError("%s must be a positive whole number, got %r" % (name, v))
    if v <= 0:
        raise TpuError("%s must be positive, got %d" % (name, v))
    return int(v)


def gemm_program(m, n, k, config="tiny", *, set=None, dtype="bf16", timing_only=False,
                 tile_m=None, tile_n=None, tile_k=None):
    """tpu-gen gemm: plan Y[M,N] = X[M,K] . W[K,N] for the machine and write
    it as assembly.  Returns (source, plan): plan holds the padded shape
    (kp, np), tiles, the HBM layout (h_x, h_w, h_y, x_row, w_row_hbm) and
    the cost model's prediction (predicted_cycles, bound, ...)."""
    cfg = _config(config, set)
    m, n, k = _size("M", m), _size("N", n), _size("K", k)
    if dtype not in DTYPES:
        raise TpuError("unknown dtype %r (bf16, int8, w8)" % (dtype,))
    tiles = [0 if t is None else _size(nm, t)
             for nm, t in (("tile_m", tile_m), ("tile_n", tile_n), ("tile_k", tile_k))]
    info = (ctypes.c_uint64 * len(_INFO))()
    cost = (ctypes.c_double * 8)()
    bound = ctypes.create_string_buffer(64)
    src = ctypes.c_void_p()
    err = _lib.errbuf()
    name = cfg.source if cfg.source else cfg.name
    if lib.tpy_gemm(cfg._h, name.encode(), m, n, k, DTYPES[dtype], int(bool(timing_only)),
                    *tiles, ctypes.byref(src), info, cost, bound, len(bound), err, len(err)):
        _lib.raise_err(err)
    text = _lib.take_string(src.value)
    plan = {"m": m, "n": n, "k": k, "dtype": dtype, "config": cfg.name,
            "timing_only": bool(timing_only)}
    plan.update(zip(_INFO, (int(v) for v in info)))
    plan.update(zip(_COST, cost))
    plan["instructions"] = int(plan["instructions"])
    plan["bound"] = bound.value.decode()
    return text, plan


def gemm(x, w, config="tiny", *, set=None, tile_m=None, tile_n=None, tile_k=None,
         max_cycles=DEFAULT_MAX_CYCLES, threads=None, save=None, system=False):
    """Y = X . W on the model: the generator's program (tpu-gen gemm,
    timing-only: its code), X and W (float arrays [M,K], [K,N]) rounded to
    bf16 the model's way and zero-padded into its HBM layout (X [M,Kp], W
    [Kp,Np]) as data records of the object, with `.expect matmul` over the
    padded product: the run is checked against the model's reference matmul
    bit for bit, as tpu-sim checks a program.  Returns (Y float32 [M,N],
    report): the report is tpu-sim --json's dict plus "plan" (the
    generator's plan and prediction).  save=PATH writes the object file
    (tpu-sim runs it alone); system=True returns (Y, report, System)."""
    cfg = _config(config, set)
    xa = np.asarray(x)
    wa = np.asarray(w)
    if xa.ndim != 2 or wa.ndim != 2:
        raise TpuError("gemm wants 2-D X and W, got shapes %s and %s" % (xa.shape, wa.shape))
    if xa.shape[1] != wa.shape[0]:
        raise TpuError("gemm: X is %dx%d and W is %dx%d: K differs"
                       % (xa.shape + wa.shape))
    for nm, a in (("X", xa), ("W", wa)):
        if a.size == 0:
            raise TpuError("gemm: %s is empty (shape %s)" % (nm, a.shape))
        if a.dtype.kind not in "fiub":
            raise TpuError("gemm: %s has dtype %s, not a number" % (nm, a.dtype))
    m, k = xa.shape
    n = wa.shape[1]
    text, plan = gemm_program(m, n, k, cfg, timing_only=True, tile_m=tile_m, tile_n=tile_n,
                              tile_k=tile_k)
    kp, np_ = plan["kp"], plan["np"]
    if plan["x_row"] != 2 * kp or plan["w_row_hbm"] != 2 * np_:
        raise TpuError("gemm: unexpected HBM layout (X row %d bytes for Kp %d, W row %d for "
                       "Np %d)" % (plan["x_row"], kp, plan["w_row_hbm"], np_))
    xp = np.zeros((m, kp), np.uint16)
    xp[:, :k] = f32_to_bf16(xa.astype(np.float32))
    wp = np.zeros((kp, np_), np.uint16)
    wp[:k, :n] = f32_to_bf16(wa.astype(np.float32))
    prog = assemble(source=text, config=cfg, name="gemm-%dx%dx%d" % (m, n, k))
    hbm = SPACES["hbm"]
    for addr, arr in ((plan["h_x"], xp), (plan["h_w"], wp)):
        if lib.tpy_obj_add_data(prog._h, hbm, addr, arr.ctypes.data, arr.nbytes):
            raise TpuError("out of memory")
    if lib.tpy_obj_add_expect_matmul(prog._h, plan["h_y"], plan["h_x"], plan["h_w"], m, kp,
                                     np_):
        raise TpuError("out of memory")
    if save:
        prog.save(save)
    s = System(cfg, program=prog, threads=threads)
    rep = s.run(max_cycles)
    s.check(rep)
    if rep["result"] != "bit-exact":
        raise TpuError("gemm: the result was not checked (%s)" % rep["result"])
    y = s.read(plan["h_y"], (m, np_), np.float32)[:, :n].copy()
    rep["plan"] = plan
    if system:
        return y, rep, s
    return y, rep


__all__ = ["gemm", "gemm_program", "ref_matmul", "model_bf16", "model_f32", "Program",
           "Config"]
