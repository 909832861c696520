"""bf16 in NumPy, the model's way (docs/numerics.md), and a golden check.

f32_to_bf16 is tpu_bf16_from_f32 (cmodel/fp.c) vectorised: NaN -> 0x7fc0,
exponent field 0 (zero, subnormal) -> the signed bf16 zero, infinity ->
the bf16 infinity of the same sign, a normal rounded to 8 significant bits,
nearest even (a carry out of 0x7f7f gives 0x7f80, infinity).  bf16_to_f32
is tpu_f32_from_bf16: exact, except that exponent field 0 becomes the
signed zero and any NaN 0x7fc00000.  The tests check both against the
model's own functions on every class of bit pattern and 10^7 random ones.
"""
import numpy as np

BF16_QNAN = np.uint16(0x7fc0)
F32_QNAN = np.uint32(0x7fc00000)


def _bits32(x):
    a = np.asarray(x)
    if a.dtype == np.uint32:
        return a
    return np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)


def f32_to_bf16(x):
    """float32 values (or their uint32 bit patterns) -> bf16 bit patterns
    (uint16), rounded as the model rounds (RNE, DAZ, one NaN)."""
    u = _bits32(x)
    exp = (u >> np.uint32(23)) & np.uint32(0xff)
    frac = u & np.uint32(0x7fffff)
    upper = u >> np.uint32(16)
    rem = u & np.uint32(0xffff)
    up = (rem > 0x8000) | ((rem == 0x8000) & ((upper & np.uint32(1)) == 1))
    out = upper + up.astype(np.uint32)          # normals; the carry rolls into the exponent
    out = np.where(exp == 0, upper & np.uint32(0x8000), out)         # zero, subnormal
    out = np.where(exp == 0xff, np.where(frac == 0, upper, np.uint32(BF16_QNAN)), out)
    return out.astype(np.uint16)


def bf16_to_f32(b):
    """bf16 bit patterns (uint16) -> float32 values, widened as the model
    widens them."""
    b = np.asarray(b, dtype=np.uint16).astype(np.uint32)
    exp = (b >> np.uint32(7)) & np.uint32(0xff)
    frac = b & np.uint32(0x7f)
    out = b << np.uint32(16)
    out = np.where(exp == 0, out & np.uint32(0x80000000), out)
    out = np.where((exp == 0xff) & (frac != 0), F32_QNAN, out)
    return out.astype(np.uint32).view(np.float32)


def round_bf16(x):
    """float32 values rounded to the nearest bf16, as float32."""
    return bf16_to_f32(f32_to_bf16(x))


class Golden:
    """The result of golden(): how far a result is from its reference."""

    def __init__(self, result, reference):
        r = np.asarray(result)
        g = np.asarray(reference)
        if r.shape != g.shape:
            raise ValueError("golden: result shape %s, reference shape %s"
                             % (r.shape, g.shape))
        r64 = r.astype(np.float64)
        g64 = g.astype(np.float64)
        self.shape = r.shape
        self.size = r.size
        rn, gn = np.isnan(r64), np.isnan(g64)
        self.nan_mismatches = int(np.count_nonzero(rn != gn))
        with np.errstate(invalid="ignore", over="ignore"):
            diff = np.abs(r64 - g64)
            same = (r64 == g64) | (rn & gn)          # equal values, inf == inf, NaN == NaN
            diff = np.where(same, 0.0, np.where(np.isnan(diff), np.inf, diff))
            mag = np.abs(g64)
            self._mag = mag
            rel = np.where(diff == 0, 0.0,
                           np.where(mag > 0, diff / np.where(mag > 0, mag, 1.0), np.inf))
        self.abs = diff
        self.rel = rel
        self.exact = int(np.count_nonzero(diff == 0))
        if r.dtype == g.dtype and r.dtype.kind in "fiu":
            self.bit_exact = bool(np.array_equal(r.view(np.uint8), g.view(np.uint8)))
        else:
            self.bit_exact = False
        if self.size:
            ia = int(np.argmax(diff))
            ir = int(np.argmax(rel))
            self.max_abs = float(diff.flat[ia])
            self.max_rel = float(rel.flat[ir])
            self.where_abs = tuple(int(i) for i in np.unravel_index(ia, r.shape))
            self.where_rel = tuple(int(i) for i in np.unravel_index(ir, r.shape))
            self.got_abs, self.want_abs = float(r64.flat[ia]), float(g64.flat[ia])
            self.got_rel, self.want_rel = float(r64.flat[ir]), float(g64.flat[ir])
        else:
            self.max_abs = self.max_rel = 0.0
            self.where_abs = self.where_rel = None
            self.got_abs = self.want_abs = self.got_rel = self.want_rel = 0.0

    def ok(self, atol=0.0, rtol=0.0):
        """Every element within atol + rtol * |reference|, NaNs where the
        reference has them."""
        if self.nan_mismatches:
            return False
        with np.errstate(invalid="ignore", over="ignore"):
            return bool(np.all((self.abs == 0) | (self.abs <= atol + rtol * self._mag)))

    def as_dict(self):
        return {"shape": self.shape, "size": self.size, "exact": self.exact,
                "bit_exact": self.bit_exact, "max_abs": self.max_abs,
                "where_abs": self.where_abs, "max_rel": self.max_rel,
                "where_rel": self.where_rel, "nan_mismatches": self.nan_mismatches}

    def __str__(self):
        if self.size == 0:
            return "golden: empty"
        return ("golden: %d of %d equal%s; max abs error %.6g at %s (got %.9g, want %.9g); "
                "max rel error %.6g at %s (got %.9g, want %.9g)%s"
                % (self.exact, self.size, " (bit-exact)" if self.bit_exact else "",
                   self.max_abs, list(self.where_abs), self.got_abs, self.want_abs,
                   self.max_rel, list(self.where_rel), self.got_rel, self.want_rel,
                   "; %d NaN mismatches" % self.nan_mismatches if self.nan_mismatches else ""))

    __repr__ = __str__


def golden(result, reference):
    """Compare a result with a reference (e.g. a NumPy matmul): max abs and
    rel error and where each is worst, NaN mismatches, bit-exactness.
    `print(golden(y, x @ w))`; `.ok(atol, rtol)` is the verdict."""
    return Golden(result, reference)
