#!/usr/bin/env bash
# npy.sh BIN_DIR WORK_DIR - arrays in and out of programs as .npy files
# (docs/tpu-sim.md, "Arrays in and out"; docs/workloads.md, "Your own arrays"):
#   - round trips: tpu-sim --load then --dump gives the same bytes for
#     float32, int32 and int8, a padded array and the K-pair layout land
#     where `.array` says, float32 into bf16 is rounded to nearest even;
#   - a GEMM from tpu-gen on arrays of our own, bf16, int8 and w8: bit-exact
#     (its .expect checks the loaded data), Y the same from another tiling,
#     tpu-gen --x/--w takes the shape from the files;
#   - malformed .npy files and bad options: one "tpu-sim: FILE: error: ..."
#     line, exit 2, nothing run (no report), no crash.
# The .npy files are written here with printf: no Python needed.
set -uo pipefail
export LC_ALL=C
bin=${1:?usage: npy.sh BIN_DIR WORK_DIR}
work=${2:?usage: npy.sh BIN_DIR WORK_DIR}
rm -rf "$work"
mkdir -p "$work"
source "$(dirname "$0")/checks.sh"   # ok, bad, skip, finish: TAP (tests/README.md)

# npy VERSION DICT [HEX] > FILE: a .npy file as numpy writes it (the header
# padded with spaces and a newline to a multiple of 64 bytes), the data
# given as hex digits.
npy() {
  local v=$1 d=$2 hex=${3:-} pre=10
  [ "$v" != 1 ] && pre=12
  local n=$(( ( (pre + ${#d} + 1 + 63) / 64) * 64 - pre ))
  printf "\\x93NUMPY\\x0$v\\x00"
  printf "\\x$(printf %02x $((n & 255)))\\x$(printf %02x $((n >> 8)))"
  [ "$pre" = 12 ] && printf '\x00\x00'
  printf '%s%*s\n' "$d" $((n - ${#d} - 1)) ''
  hexout "$hex"
}
hexout() { [ -n "$1" ] && printf "$(printf '%s' "$1" | sed 's/../\\x&/g')"; return 0; }
# little-endian hex of 32-bit words given in hex: le32 3f800000 ... -> 0000803f...
le32() { local w; for w in "$@"; do printf '%s%s%s%s' "${w:6:2}" "${w:4:2}" "${w:2:2}" "${w:0:2}"; done; }
dict() { echo "{'descr': '$1', 'fortran_order': False, 'shape': $2, }"; }

# ---- a program with an array of each kind ---------------------------------------
cat > "$work/arr.s" <<'EOF'
start:  halt
        .hbm 0
A:      .random f32, 12, 5          # [3, 4] float32
        .hbm 0x100
B:      .zero 16                    # [4] int32
        .hbm 0x200
C:      .zero 8                     # [2, 2, 2] int8
N:      .zero 8                     # no .array
        .vmem 0
H:      .zero 16                    # [8] bf16
        .vmem 0x40
P: PR:  .zero 64                    # [2, 3] float32, rows 32 bytes apart
        .vmem 0x100
K: KR:  .zero 16                    # [3, 4] int8 in K-pairs, pair-rows 8 bytes apart
        .array A, f32, 3, 4
        .array B, i32, 4
        .array C, i8, 2, 2, 2
        .array H, bf16, 8
        .array P, f32, 2, 3, pitch 32
        .array PR, f32, 16
        .array K, i8, 3, 4, pitch 8, kpairs
        .array KR, i8, 16
EOF
if "$bin/tpu-as" --config tiny -o "$work/arr.bin" "$work/arr.s" >"$work/as.log" 2>&1; then
  ok "a program with .array labels of every type assembles"
else
  bad "arr.s does not assemble: $(head -n 2 "$work/as.log")"
fi
"$bin/tpu-dis" "$work/arr.bin" > "$work/arr.dis.s" 2>&1
if "$bin/tpu-as" --config tiny -o "$work/arr2.bin" "$work/arr.dis.s" >/dev/null 2>&1 \
   && cmp -s "$work/arr.bin" "$work/arr2.bin"; then
  ok "tpu-dis prints the .array lines back: the object reassembles byte for byte"
else
  bad "tpu-dis | tpu-as does not reproduce arr.bin"
fi

# sim ARGS...: run tpu-sim on arr.bin; exit status in $rc, output in $work/sim.out/.err
sim() { "$bin/tpu-sim" --quiet "$@" >"$work/sim.out" 2>"$work/sim.err"; rc=$?; }

# roundtrip NAME LABEL FILE: --load then --dump gives the same file
roundtrip() {
  sim --load "$2=$3" --dump "$2=$work/out.npy" "$work/arr.bin"
  if [ $rc -eq 0 ] && cmp -s "$3" "$work/out.npy"; then ok "$1: --load then --dump gives the same bytes"
  else bad "$1: exit $rc, $(head -c 300 "$work/sim.err") $(cmp "$3" "$work/out.npy" 2>&1)"; fi
}
npy 1 "$(dict '<f4' '(3, 4)')" "$(le32 3f800000 c0000000 7f800000 ff800000 00000001 80000000 \
    7fc00001 3eaaaaab 4b7fffff cb800001 00800000 bf7fffff)" > "$work/a.npy"
roundtrip "float32 [3, 4] (inf, nan, subnormal as they are)" A "$work/a.npy"
npy 1 "$(dict '<i4' '(4,)')" "$(le32 00000001 ffffffff 80000000 7fffffff)" > "$work/b.npy"
roundtrip "int32 [4]" B "$work/b.npy"
npy 1 "$(dict '|i1' '(2, 2, 2)')" "0102037f80fdfeff" > "$work/c.npy"
roundtrip "int8 [2, 2, 2]" C "$work/c.npy"
npy 1 "$(dict '<f4' '(2, 3)')" "$(le32 3f800000 40000000 40400000 40800000 40a00000 40c00000)" \
  > "$work/p.npy"
roundtrip "float32 [2, 3] with rows 32 bytes apart" P "$work/p.npy"

# the padded rows land 32 bytes apart, the padding untouched
sim --load "P=$work/p.npy" --dump "PR=$work/pr.npy" "$work/arr.bin"
npy 1 "$(dict '<f4' '(16,)')" "$(le32 3f800000 40000000 40400000 00000000 00000000 00000000 \
    00000000 00000000 40800000 40a00000 40c00000 00000000 00000000 00000000 00000000 \
    00000000)" > "$work/pr-want.npy"
if [ $rc -eq 0 ] && cmp -s "$work/pr.npy" "$work/pr-want.npy"; then
  ok "pitch: row 1 of P starts 32 bytes after row 0, the padding stays zero"
else bad "pitch: exit $rc, $(cmp "$work/pr.npy" "$work/pr-want.npy" 2>&1)"; fi

# K-pairs: W[k][n] at (k/2)*8 + 2n + k%2
npy 1 "$(dict '|i1' '(3, 4)')" "0102030405060708090a0b0c" > "$work/k.npy"
sim --load "K=$work/k.npy" --dump "KR=$work/kr.npy" --dump "K=$work/k2.npy" "$work/arr.bin"
npy 1 "$(dict '|i1' '(16,)')" "010502060307040809000a000b000c00" > "$work/kr-want.npy"
if [ $rc -eq 0 ] && cmp -s "$work/kr.npy" "$work/kr-want.npy" && cmp -s "$work/k.npy" "$work/k2.npy"; then
  ok "kpairs: int8 [3, 4] lands K-pair-interleaved (W[2r][n], W[2r+1][n] side by side) and comes back"
else bad "kpairs: exit $rc, $(cmp "$work/kr.npy" "$work/kr-want.npy" 2>&1) $(cmp "$work/k.npy" "$work/k2.npy" 2>&1)"; fi

# float32 into bf16: round to nearest even (numerics.md, fp32 -> bf16)
npy 1 "$(dict '<f4' '(8,)')" "$(le32 3f808000 3f818000 3f80c000 3f804000 7fa00000 ff800000 \
    80000001 7f7fffff)" > "$work/h.npy"
npy 1 "$(dict '<f4' '(8,)')" "$(le32 3f800000 3f820000 3f810000 3f800000 7fc00000 ff800000 \
    80000000 7f800000)" > "$work/h-want.npy"
sim --load "H=$work/h.npy" --dump "H=$work/h-out.npy" "$work/arr.bin"
if [ $rc -eq 0 ] && cmp -s "$work/h-out.npy" "$work/h-want.npy"; then
  ok "float32 into bf16: ties to even, above/below half, NaN 0x7fc0, -inf, subnormal -> -0, overflow -> inf"
else bad "bf16 rounding: exit $rc, $(cmp "$work/h-out.npy" "$work/h-want.npy" 2>&1)"; fi
npy 1 "$(dict '<u2' '(8,)')" "803f0140c07f0180ffff0000807f0100" > "$work/hu.npy"
npy 1 "$(dict '<f4' '(8,)')" "$(le32 3f800000 40010000 7fc00000 80010000 ffff0000 00000000 \
    7f800000 00010000)" > "$work/hu-want.npy"
sim --load "H=$work/hu.npy" --dump "H=$work/hu-out.npy" "$work/arr.bin"
if [ $rc -eq 0 ] && cmp -s "$work/hu-out.npy" "$work/hu-want.npy"; then
  ok "uint16 into bf16: the bit patterns as they are (dumped as float32, 16 zero bits after)"
else bad "uint16 bf16 bits: exit $rc, $(cmp "$work/hu-out.npy" "$work/hu-want.npy" 2>&1)"; fi

# ---- bad files and options: exit 2, one message, nothing run -----------------------
# reject NAME WANT ARGS...: tpu-sim exits 2, stderr has WANT, stdout is empty
reject() {
  local name=$1 want=$2; shift 2
  sim "$@" "$work/arr.bin"
  if [ $rc -eq 2 ] && [ ! -s "$work/sim.out" ] && grep -q -- "$want" "$work/sim.err" \
     && [ "$(wc -l < "$work/sim.err")" -le 2 ] && ! grep -q -i 'sanitizer\|runtime error' "$work/sim.err"; then
    ok "$name: exit 2, nothing run: $(head -n 1 "$work/sim.err")"
  else
    bad "$name: exit $rc (want 2 and '$want'): $(head -c 400 "$work/sim.err") $(head -c 200 "$work/sim.out")"
  fi
}
# badnpy NAME WANT: the file $work/bad.npy given to --load A=
badnpy() { reject "$1" "bad.npy: error: .*$2" --load "A=$work/bad.npy"; }
a12=$(le32 3f800000 3f800000 3f800000 3f800000 3f800000 3f800000 3f800000 3f800000 3f800000 \
      3f800000 3f800000 3f800000)

: > "$work/bad.npy";                                              badnpy "empty file" "not a .npy file"
printf 'PK\003\004 not numpy at all' > "$work/bad.npy";          badnpy "bad magic" "not a .npy file"
npy 1 "$(dict '<f4' '(3, 4)')" "$a12" | sed '1s/NUMPY\x01/NUMPY\x04/' > "$work/bad.npy"
                                                                  badnpy "version 4.0" "version 4.0"
npy 1 "$(dict '<f4' '(3, 4)')" | head -c 40 > "$work/bad.npy";    badnpy "file ends inside the header" "truncated: the header says"
printf '\x93NUMPY\x02\x00\x00\x00\x10\x00' > "$work/bad.npy";     badnpy "header length 1 MiB" "longer than the limit"
npy 1 "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }" "$a12" | tr '}' '\000' > "$work/bad.npy"
                                                                  badnpy "NUL byte in the header" "a NUL byte in the header"
npy 1 "{'descr': '<f4', 'fortran_order': True, 'shape': (3, 4), }" "$a12" > "$work/bad.npy"
                                                                  badnpy "Fortran order" "Fortran-order arrays are not supported"
npy 1 "$(dict '|O' '(3, 4)')" "$a12$a12" > "$work/bad.npy";       badnpy "object array" "object arrays"
npy 1 "$(dict '>f4' '(3, 4)')" "$a12" > "$work/bad.npy";          badnpy "big-endian" "big-endian dtype '>f4'"
npy 1 "$(dict '<f8' '(3, 2)')" "$a12" > "$work/bad.npy";          badnpy "float64" "unsupported dtype '<f8'"
npy 1 "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (3,), }" "$a12" > "$work/bad.npy"
                                                                  badnpy "structured dtype" "structured arrays"
npy 1 "$(dict '<f4' '(1099511627776, 1099511627776)')" "$a12" > "$work/bad.npy"
                                                                  badnpy "shape product overflows" "is too large"
npy 1 "$(dict '<f4' '(18446744073709551616, 1)')" "$a12" > "$work/bad.npy"
                                                                  badnpy "dimension past 2^64" "too large"
npy 1 "$(dict '<f4' '(3, 4)')" "${a12:0:80}" > "$work/bad.npy";   badnpy "data shorter than the shape" "truncated: shape (3, 4) of float32 needs 48 bytes of data, the file has 40"
npy 1 "$(dict '<f4' '(3, 4)')" "${a12}00" > "$work/bad.npy";      badnpy "data longer than the shape" "1 byte after the data"
npy 1 "{'descr': '<f4', 'fortran_order': False, }" "$a12" > "$work/bad.npy"
                                                                  badnpy "no shape key" "no 'shape' key"
npy 1 "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), 'shape': (3, 4)}" "$a12" > "$work/bad.npy"
                                                                  badnpy "key twice" "appears twice"
npy 1 "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), 'extra': 1}" "$a12" > "$work/bad.npy"
                                                                  badnpy "unknown key" "unknown key 'extra'"
npy 1 "{descr: '<f4', 'fortran_order': False, 'shape': (3, 4)}" "$a12" > "$work/bad.npy"
                                                                  badnpy "unquoted key" "expected a quoted string at offset 11"
npy 1 "{'descr': '<f4', 'fortran_order': False, 'shape': (12)}" "$a12" > "$work/bad.npy"
                                                                  badnpy "shape (12) is a number" "a 1-D shape is written (12,)"
npy 1 "{'descr': '<f4', 'fortran_order': False, 'shape: (3, 4)}" "$a12" > "$work/bad.npy"
                                                                  badnpy "unbalanced quotes" "malformed header: expected the closing quote"
npy 1 "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4)" "$a12" > "$work/bad.npy"
                                                                  badnpy "dict not closed" "malformed header"
npy 1 "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4)} x" "$a12" > "$work/bad.npy"
                                                                  badnpy "garbage after the dict" "only spaces and a newline after the dict"
npy 1 "{'descr': '<f4', 'fortran_order': Flase, 'shape': (3, 4)}" "$a12" > "$work/bad.npy"
                                                                  badnpy "fortran_order not a bool" "True or False"
npy 1 "$(dict '<f4' '(3, 4)')" "$a12" | sed '1s/descr/d\xc3\xa9scr/' > "$work/bad.npy"
                                                                  badnpy "non-ASCII in a 1.0 header" "expected ASCII"
npy 1 "$(dict '<i4' '(3, 4)')" "$a12" > "$work/bad.npy";          badnpy "int32 into a float32 array" "(3, 4) of int32 does not fit label A ((3, 4) f32): expected shape (3, 4) of float32"
npy 1 "$(dict '<f4' '(4, 3)')" "$a12" > "$work/bad.npy";          badnpy "shape [4, 3] into [3, 4]" "expected shape (3, 4)"
npy 1 "$(dict '<f4' '(12,)')" "$a12" > "$work/bad.npy";           badnpy "flat [12] into [3, 4]" "expected shape (3, 4)"
reject "a file that is not there" "no-such.npy: error: cannot open" --load "A=$work/no-such.npy"
reject "a directory" "error: not a regular file" --load "A=$work"
reject "unknown label" "arr.bin has no label 'Q'.*(its arrays: A, B, C, H, P, PR, K, KR)" --load "Q=$work/a.npy"
reject "a near miss, --dump checked before the run" "did you mean 'K'?" --dump "KX=$work/x.npy"
reject "a label without .array" "label 'N' of .*has no element type and shape" --load "N=$work/a.npy"
reject "a code label" "'start' is a code label" --load "start=$work/a.npy"
reject "--load without =FILE" "--load wants LABEL=FILE.npy" --load A
reject "--dump with an empty file name" "--dump wants LABEL=FILE.npy" --dump "A="
reject "--dump with --step" "--dump cannot be used with --step" --step --dump "A=$work/x.npy"

# --dump whole or not at all: an unwritable place leaves nothing, exit 3
sim --dump "A=$work/no-dir/a.npy" "$work/arr.bin"
if [ $rc -eq 3 ] && grep -q 'a.npy: error: cannot write' "$work/sim.err" && [ ! -e "$work/no-dir" ]; then
  ok "--dump into a missing folder: exit 3, $(head -n 1 "$work/sim.err")"
else bad "--dump into a missing folder: exit $rc, $(head -c 300 "$work/sim.err")"; fi
cp "$work/a.npy" "$work/keep.npy"
chmod a-w "$work" 2>/dev/null
sim --dump "A=$work/keep.npy" "$work/arr.bin"
chmod u+w "$work"
if [ "$(id -u)" != 0 ]; then
  if [ $rc -eq 3 ] && cmp -s "$work/a.npy" "$work/keep.npy" && ! ls "$work"/keep.npy.tmp* >/dev/null 2>&1; then
    ok "--dump into a read-only folder: the old file stays whole, no temporary left"
  else bad "--dump into a read-only folder: exit $rc, $(head -c 300 "$work/sim.err")"; fi
fi

# ---- .array errors in the assembler ------------------------------------------------
# asm_reject NAME WANT LINE: arr.s with LINE added fails to assemble with WANT
asm_reject() {
  { cat "$work/arr.s"; echo "$3"; } > "$work/bad.s"
  "$bin/tpu-as" --config tiny -o "$work/bad.bin" "$work/bad.s" >"$work/as.out" 2>&1; local r=$?
  if [ $r -eq 1 ] && grep -q -- "bad.s:.*error: .*$2" "$work/as.out"; then ok "tpu-as $1: $(head -n 1 "$work/as.out")"
  else bad "tpu-as $1: exit $r (want 1 and '$2'): $(head -c 300 "$work/as.out")"; fi
}
asm_reject ".array of an unknown name" "'Z' is not a label" "        .array Z, f32, 4"
asm_reject ".array of a code label" "'start' is a code label" "        .array start, f32, 4"
asm_reject "a second .array of a label" "a second '.array A'" "        .array A, f32, 12"
asm_reject "an unknown type" "element type must be bf16, f32, i8 or i32, got 'f64'" "        .array N, f64, 4"
asm_reject "a dimension 0" "dimension 0 must be at least 1" "        .array N, i8, 0"
asm_reject "a pitch below a row" "pitch 2 is less than a row's 4 bytes" "        .array N, i8, 2, 4, pitch 2"
asm_reject "kpairs on f32" "'kpairs' is the layout of a 2-D i8 array" "        .array N, f32, 2, 2, kpairs"
asm_reject "an array past the memory" "is outside hbm" "        .array N, i32, 1 << 30"

# ---- a GEMM on our own arrays --------------------------------------------------------
# Arrays from a data program: float32 (not bf16 values: --load rounds them)
# and int8, from seeds unlike tpu-gen's.
M=13 N=21 K=19
cat > "$work/data.s" <<EOF
        halt
        .hbm 0
XF:     .random f32, $((M*K)), 99, -2, 2
WF:     .random f32, $((K*N)), 77
XI:     .random i8, $((M*K)), 55
WI:     .random i8, $((K*N)), 66
        .array XF, f32, $M, $K
        .array WF, f32, $K, $N
        .array XI, i8, $M, $K
        .array WI, i8, $K, $N
EOF
"$bin/tpu-as" --config tiny -o "$work/data.bin" "$work/data.s" >/dev/null 2>&1
"$bin/tpu-sim" --quiet --dump "XF=$work/x.npy" --dump "WF=$work/w.npy" --dump "XI=$work/xi.npy" \
  --dump "WI=$work/wi.npy" "$work/data.bin" >/dev/null 2>&1 || bad "the data program does not run"

# gemm NAME DTYPE X W GEN-OPTIONS...: generate, assemble, run on the arrays,
# bit-exact by its own .expect; Y in $work/y-NAME.npy
gemm() {
  local name=$1 dt=$2 x=$3 w=$4; shift 4
  local f="$work/g-$name"
  if ! "$bin/tpu-gen" gemm --config tiny --dtype "$dt" "$@" -o "$f.s" >"$f.gen" 2>&1; then
    bad "gemm $name: tpu-gen failed: $(head -n 1 "$f.gen")"; return 1
  fi
  if ! "$bin/tpu-as" --config tiny -o "$f.bin" "$f.s" >"$f.as" 2>&1; then
    bad "gemm $name: tpu-as failed: $(head -n 1 "$f.as")"; return 1
  fi
  "$bin/tpu-sim" --quiet --load "X=$x" --load "W=$w" --dump "Y=$work/y-$name.npy" "$f.bin" \
    >"$f.sim" 2>&1
  local r=$?
  if [ $r -eq 0 ] && grep -q '^result: bit-exact' "$f.sim"; then return 0; fi
  bad "gemm $name: exit $r, $(head -c 300 "$f.sim")"; return 1
}
shape_of() { head -c 128 "$1" | tr -d '\000' | sed -n "s/.*'shape': (\([0-9, ]*\)).*/\1/p"; }
descr_of() { head -c 128 "$1" | tr -d '\000' | sed -n "s/.*'descr': '\([^']*\)'.*/\1/p"; }

for dt in bf16 int8 w8; do
  case $dt in bf16) x=$work/x.npy w=$work/w.npy yt='<f4';; int8) x=$work/xi.npy w=$work/wi.npy yt='<i4';;
              w8) x=$work/x.npy w=$work/wi.npy yt='<f4';; esac
  gemm "$dt" "$dt" "$x" "$w" -M $M -N $N -K $K || continue
  if [ "$(shape_of "$work/y-$dt.npy")" = "$M, $N" ] && [ "$(descr_of "$work/y-$dt.npy")" = "$yt" ]; then
    ok "gemm $dt ${M}x${N}x${K} on our arrays: bit-exact (.expect checks the loaded X and W), Y is ($M, $N) $yt"
  else bad "gemm $dt: Y is ($(shape_of "$work/y-$dt.npy")) $(descr_of "$work/y-$dt.npy")"; fi
  # another plan (M-tiles of 4 rows, K in blocks) computes the same Y
  if gemm "$dt-tiled" "$dt" "$x" "$w" -M $M -N $N -K $K --tile-m 4 \
     && cmp -s "$work/y-$dt.npy" "$work/y-$dt-tiled.npy"; then
    ok "gemm $dt: --tile-m 4 gives the same Y byte for byte"
  else bad "gemm $dt: --tile-m 4 gives another Y"; fi
  # tpu-gen's own data gives another Y: the load did something
  "$bin/tpu-sim" --quiet --dump "Y=$work/y-own.npy" "$work/g-$dt.bin" >/dev/null 2>&1
  if ! cmp -s "$work/y-own.npy" "$work/y-$dt.npy"; then ok "gemm $dt: without --load, Y differs (tpu-gen's data)"
  else bad "gemm $dt: Y is the same with and without --load"; fi
done

# tpu-gen --x --w: the shape from the files, the same program
if "$bin/tpu-gen" gemm --config tiny --x "$work/x.npy" --w "$work/w.npy" -o "$work/gx.s" >"$work/gx.out" 2>&1 \
   && cmp -s "$work/gx.s" "$work/g-bf16.s" && grep -q 'tpu-sim --config tiny --load X=.*x.npy --load W=.*w.npy --dump Y=Y.npy' "$work/gx.out"; then
  ok "tpu-gen --x --w: M, N, K from the arrays' shapes, the program of -M $M -N $N -K $K, the run's command printed"
else bad "tpu-gen --x --w: $(head -c 300 "$work/gx.out")"; fi
# gen_reject NAME WANT ARGS...: tpu-gen exits 2 with WANT
gen_reject() {
  local name=$1 want=$2; shift 2
  "$bin/tpu-gen" gemm --config tiny "$@" -o "$work/gr.s" >"$work/gr.out" 2>&1; local r=$?
  if [ $r -eq 2 ] && grep -q -- "$want" "$work/gr.out"; then ok "tpu-gen $name: exit 2, $(head -n 1 "$work/gr.out")"
  else bad "tpu-gen $name: exit $r (want 2 and '$want'): $(head -c 300 "$work/gr.out")"; fi
}
gen_reject "--x and --w whose K differ" "K must agree" --x "$work/x.npy" --w "$work/x.npy"
gen_reject "-M against --x" "-M 5 does not match --x's shape (-M $M)" -M 5 --x "$work/x.npy" -N 3
gen_reject "--dtype int8 with float32 X" "expected a 2-D array \[M, K\] of int8" --dtype int8 --x "$work/x.npy" -N 3
gen_reject "a 1-D --w" "expected a 2-D array \[K, N\]" --w "$work/b.npy" -M 2 -K 4
gen_reject "a broken --x" "bad.npy: error: .*--x" --x "$work/bad.npy" -N 3 -K 4

finish npy
