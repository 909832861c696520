"""tpumodel.gemm: the generator's program on the model with the caller's
arrays, against the model's reference matmul bit for bit."""
import os

import numpy as np
import pytest

import tpumodel as tm

SHAPES = [("tiny", 1, 1, 1), ("tiny", 5, 10, 12), ("tiny", 37, 19, 70), ("tiny", 8, 8, 8),
          ("mid", 3, 40, 33), ("mid", 70, 17, 100), ("v5e", 9, 130, 129)]


def _rand_shapes(n, seed=7):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        cfg = ("tiny", "mid")[rng.integers(0, 2)]
        out.append((cfg, int(rng.integers(1, 80)), int(rng.integers(1, 80)),
                    int(rng.integers(1, 80))))
    return out


def _reference(x, w, cfg):
    """The padded product on the model's reference, unpadded."""
    n = int(tm.Config(cfg).mxu_n)
    k = x.shape[1]
    kp = -(-k // n) * n
    np_ = -(-w.shape[1] // n) * n
    xp = np.zeros((x.shape[0], kp), np.uint16)
    xp[:, :k] = tm.f32_to_bf16(x.astype(np.float32))
    wp = np.zeros((kp, np_), np.uint16)
    wp[:k, :w.shape[1]] = tm.f32_to_bf16(w.astype(np.float32))
    return tm.ref_matmul(xp, wp, n)[:, :w.shape[1]]


@pytest.mark.parametrize("cfg,m,n,k", SHAPES + _rand_shapes(12),
                         ids=lambda v: str(v))
def test_gemm_bit_exact(cfg, m, n, k):
    rng = np.random.default_rng(m * 10007 + n * 101 + k)
    x = rng.standard_normal((m, k))
    w = rng.standard_normal((k, n)).astype(np.float32)
    y, rep = tm.gemm(x, w, config=cfg)
    assert y.shape == (m, n) and y.dtype == np.float32
    assert rep["result"] == "bit-exact" and rep["stop"] == "halt" and rep["config"] == cfg
    assert rep["plan"]["m"] == m and rep["cycles"] > 0
    want = _reference(x, w, cfg)
    assert np.array_equal(y.view(np.uint32), want.view(np.uint32))
    # the unpadded reference: the same values (padding adds +0s, numerics.md)
    unpadded = tm.ref_matmul(tm.f32_to_bf16(x.astype(np.float32)),
                             tm.f32_to_bf16(w), int(tm.Config(cfg).mxu_n))
    assert np.array_equal(y, unpadded)
    # and near NumPy's float64 product of the bf16 inputs
    g = tm.golden(y, tm.round_bf16(x.astype(np.float32)).astype(np.float64)
                  @ tm.round_bf16(w).astype(np.float64))
    assert g.ok(atol=1e-4 * k, rtol=1e-5), str(g)


def test_gemm_special_values():
    x = np.array([[np.inf, 1.0, 0.0, 1e-40], [np.nan, -0.0, 3.4e38, 2.0]], np.float32)
    w = np.array([[1.0, -1.0, 0.0], [2.0, 1.0, -0.0], [0.5, 3.4e38, 1.0], [1.0, 1.0, 1.0]],
                 np.float32)
    y, rep = tm.gemm(x, w)
    assert rep["result"] == "bit-exact"
    assert np.array_equal(y.view(np.uint32), _reference(x, w, "tiny").view(np.uint32))
    assert np.isnan(y[1]).all()


def test_gemm_tiles_and_save(bindir, work):
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((40, 24)), rng.standard_normal((24, 20))
    y1, r1 = tm.gemm(x, w, config="mid", tile_m=8)
    y2, r2 = tm.gemm(x, w, config="mid")
    assert np.array_equal(y1, y2) and r1["plan"]["tm"] == 8 and r1["plan"]["mtiles"] == 5
    path = os.path.join(work, "gemm.bin")
    y3, r3, s = tm.gemm(x, w, config="mid", save=path, system=True)
    # the saved object runs alone in tpu-sim, bit-exact, the same cycles
    import json
    import subprocess
    out = subprocess.run([os.path.join(bindir, "tpu-sim"), "--json", "--config", "mid", path],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["cycles"] == r3["cycles"]
    assert s.stop == "halt"


def test_gemm_program_matches_tpu_gen(bindir):
    import subprocess
    src, plan = tm.gemm_program(30, 50, 70, "tiny")
    out = subprocess.run([os.path.join(bindir, "tpu-gen"), "gemm", "--config", "tiny", "-M",
                          "30", "-N", "50", "-K", "70", "--quiet"], capture_output=True,
                         text=True, timeout=60)
    # the generator's program; tpu-gen's front end may add lines after it (.array)
    assert out.returncode == 0 and out.stdout.startswith(src)
    assert plan["kp"] == 72 and plan["np"] == 56 and plan["bound"]
    # the generated program with its own data and .expect is bit-exact
    s, rep = tm.run(tm.assemble(source=src, config="tiny"))
    assert rep["result"] == "bit-exact"


@pytest.mark.parametrize("x,w,match", [
    (np.zeros((2, 3)), np.zeros((4, 2)), "K differs"),
    (np.zeros(3), np.zeros((3, 2)), "2-D"),
    (np.zeros((0, 3)), np.zeros((3, 2)), "empty"),
    (np.array([["a"]]), np.zeros((1, 1)), "not a number"),
])
def test_gemm_bad_inputs(x, w, match):
    with pytest.raises(tm.TpuError, match=match):
        tm.gemm(x, w)


def test_gemm_bad_machine():
    with pytest.raises(tm.TpuError, match="does not fit HBM"):
        tm.gemm_program(4096, 4096, 4096, "tiny", timing_only=True)
    with pytest.raises(tm.TpuError, match="tile-n 12 is impossible"):
        tm.gemm_program(8, 8, 8, "tiny", tile_n=12)
    with pytest.raises(tm.TpuError, match="positive"):
        tm.gemm_program(0, 8, 8, "tiny")
    with pytest.raises(tm.TpuError, match="config nosuch"):
        tm.gemm(np.ones((2, 2)), np.ones((2, 2)), config="nosuch")
