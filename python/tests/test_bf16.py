"""The NumPy bf16 rounding (tpumodel.bf16) against the model's own
tpu_bf16_from_f32 / tpu_f32_from_bf16 (cmodel/fp.c through the library),
bit for bit: every class of fp32 pattern, every bf16 pattern, 10^7 random
patterns; and the golden check."""
import numpy as np

import tpumodel as tm


def _same(bits32):
    u = np.asarray(bits32, dtype=np.uint32)
    got = tm.f32_to_bf16(u)
    want = tm.model_bf16(u)
    bad = np.nonzero(got != want)[0]
    assert bad.size == 0, "0x%08x: numpy 0x%04x, model 0x%04x" % (u[bad[0]], got[bad[0]],
                                                                   want[bad[0]])
    # float32 input goes the same way as its bit pattern
    assert np.array_equal(tm.f32_to_bf16(u.view(np.float32)), want)


def test_classes():
    pats = []
    for sign in (0, 0x80000000):
        pats += [sign | p for p in (
            0x00000000,                                  # zero
            0x00000001, 0x00008000, 0x00010000, 0x007f8000, 0x007fffff,   # subnormals
            0x00800000, 0x00808000, 0x00818000, 0x00807fff, 0x00808001,   # smallest normals
            0x3f800000, 0x3f808000, 0x3f818000, 0x3f807fff, 0x3f808001,   # ties at 1.0
            0x3f817fff, 0x3f818001, 0x3fff8000, 0x3fffffff, 0x3f7f8000,   # carries
            0x7f7f0000, 0x7f7f7fff, 0x7f7f8000, 0x7f7f8001, 0x7f7fffff,   # max: to inf
            0x7f7e8000, 0x7f7e8001,
            0x7f800000,                                  # infinity
            0x7f800001, 0x7fbfffff, 0x7fc00000, 0x7fc00001, 0x7fffffff,   # NaNs
            0x7f810000, 0x7f808000)]
    _same(pats)


def test_every_upper_half_at_the_tie_points():
    """Every sign, exponent and bf16 fraction, with the low halves that
    decide the rounding: 0, 1, just below, at and above the tie, all ones."""
    upper = np.arange(1 << 16, dtype=np.uint32) << np.uint32(16)
    lows = np.array([0, 1, 0x7fff, 0x8000, 0x8001, 0xffff], np.uint32)
    _same((upper[:, None] | lows[None, :]).ravel())


def test_random_patterns():
    rng = np.random.default_rng(20240531)
    _same(rng.integers(0, 1 << 32, size=10_000_000, dtype=np.uint64).astype(np.uint32))


def test_widening_every_bf16():
    b = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    assert np.array_equal(tm.bf16_to_f32(b).view(np.uint32), tm.model_f32(b))


def test_round_bf16_values():
    x = np.array([1.0, 1.00390625, 1.005859375, -2.5, 3.4e38, np.inf, -0.0, 1e-40],
                 np.float32)
    r = tm.round_bf16(x)
    assert r.dtype == np.float32
    assert r[0] == 1.0 and r[1] == 1.0           # tie to even (1.0)
    assert r[2] == 1.0078125                     # above the tie
    assert r[3] == -2.5 and np.isinf(r[4]) and np.isinf(r[5])   # 3.4e38 rounds past 0x7f7f
    assert r[6] == 0 and np.signbit(r[6]) and r[7] == 0 and not np.signbit(r[7])
    n = tm.round_bf16(np.array([np.nan], np.float32))
    assert n.view(np.uint32)[0] == 0x7fc00000


def test_golden():
    ref = np.array([[1.0, 2.0], [0.0, -4.0]])
    res = np.array([[1.0, 2.5], [0.0, -4.0]])
    g = tm.golden(res, ref)
    assert g.max_abs == 0.5 and g.where_abs == (0, 1)
    assert g.max_rel == 0.25 and g.where_rel == (0, 1)
    assert g.exact == 3 and not g.bit_exact
    assert g.ok(atol=0.5) and not g.ok(atol=0.1) and g.ok(rtol=0.25)
    assert "max abs error 0.5 at [0, 1]" in str(g)
    same = tm.golden(np.float32([np.nan, np.inf]), np.float32([np.nan, np.inf]))
    assert same.bit_exact and same.max_abs == 0 and same.ok()
    nan = tm.golden(np.float32([1.0, np.nan]), np.float32([1.0, 2.0]))
    assert nan.nan_mismatches == 1 and not nan.ok(atol=1e9)
    zero = tm.golden(np.float32([1e-3]), np.float32([0.0]))
    assert zero.max_rel == np.inf and zero.ok(atol=1e-2)
