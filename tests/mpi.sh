#!/usr/bin/env bash
# mpi.sh BIN_DIR WORK_DIR - tpu-sim-mpi (sim/mpi/) under `mpirun -np 2` and
# 3 (--oversubscribe: this host may have fewer CPUs) gives tpu-sim's report
# byte for byte, and its exit status: on collectives that halt, the
# collective matmul, a deadlock, a run-time error, the cycle limit, a bad
# command line.
set -uo pipefail
bin=${1:?usage: mpi.sh BIN_DIR WORK_DIR}
work=${2:?usage: mpi.sh BIN_DIR WORK_DIR}
mkdir -p "$work"
cd "$(dirname "$0")/.." || exit 1
source tests/checks.sh   # ok, bad, skip, finish: TAP (tests/README.md)
# Open MPI refuses root unless told twice; a test machine may well be root.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none   # containers lack CMA
if ! command -v mpirun >/dev/null 2>&1 || [ ! -x "$bin/tpu-sim-mpi" ]; then
  bad "mpirun or $bin/tpu-sim-mpi missing: apt-get install -y libopenmpi-dev openmpi-bin (make deps), then make mpi"
  finish mpi
fi

# same NAME NP "asm options" PROGRAM "sim options": tpu-sim and mpirun -np NP
# tpu-sim-mpi print the same JSON and exit the same way
same() {
  local name=$1 np=$2 asopts=$3 prog=$4 simopts=$5
  # shellcheck disable=SC2086
  "$bin/tpu-as" $asopts -o "$work/$name.bin" "$prog" 2>"$work/$name.as.err" || {
    bad "$name: tpu-as: $(head -n 1 "$work/$name.as.err")"; return; }
  # shellcheck disable=SC2086
  "$bin/tpu-sim" $simopts --json "$work/$name.bin" >"$work/$name.one.json" 2>"$work/$name.one.err"
  local want=$?
  # shellcheck disable=SC2086
  mpirun --oversubscribe -np "$np" "$bin/tpu-sim-mpi" $simopts --json "$work/$name.bin" \
    >"$work/$name.mpi.json" 2>"$work/$name.mpi.err"
  local got=$?
  if [ "$got" != "$want" ]; then
    bad "$name: -np $np exit $got, tpu-sim $want $(grep -v '^$' "$work/$name.mpi.err" | head -n 2)"
  elif ! cmp -s "$work/$name.one.json" "$work/$name.mpi.json"; then
    bad "$name: -np $np report differs from tpu-sim's"
  else
    ok "$name: -np $np, exit $got, the same report"
  fi
}

same allreduce-ring5     2 "--config tiny -D K=5 -D CHUNK=2048 -D LIB_PIECE=256" programs/allreduce.s "--cores 5"
same allreduce-ring5-np3 3 "--config tiny -D K=5 -D CHUNK=2048 -D LIB_PIECE=256" programs/allreduce.s "--cores 5"
same allgather-torus     2 "--config tiny -D R=2 -D C=4" programs/allgather.s "--cores 8 --topology torus2d --grid 2x4"
same matmul-2chip        2 "--config tiny -D B=16 -D F=64 -D D=32" programs/matmul_2chip.s "--cores 2"
same collective-v5e      2 "--config v5e -D K=4 -D B=256 -D D=1024 -D F=8192 -D DATA=0" programs/matmul_collective.s "--cores 4 --threads 1"
same cycle-limit         2 "--config tiny -D K=4" programs/allreduce.s "--cores 4 --max-cycles 300"
same torus-on-mesh       2 "--config tiny -D R=2 -D C=4" programs/allgather.s "--cores 8 --topology mesh2d --grid 2x4"
cat > "$work/deadlock.s" <<'EOS'
        li      s1, 64
        sem.wait 1, 1                   # the neighbour's data, which it sends only after ours
        dma.ici 0, zero, zero, s1, 2, 1
        halt
EOS
same deadlock            2 "--config tiny" "$work/deadlock.s" "--cores 4"
# the ranks did split the work: rank 0 cores 0-2, rank 1 cores 3-4, both in windows
TPU_MPI_STATS=1 mpirun --oversubscribe -np 2 "$bin/tpu-sim-mpi" --cores 5 --quiet \
  "$work/allreduce-ring5.bin" >/dev/null 2>"$work/stats.err"
if grep -qE "rank 0 stepped 3 cores from core 0 in [1-9][0-9]* windows" "$work/stats.err" &&
   grep -qE "rank 1 stepped 2 cores from core 3 in [1-9][0-9]* windows" "$work/stats.err"; then
  ok "the ranks split the cores and ran windows"
else bad "the ranks did not split the work: $(head -n 2 "$work/stats.err")"; fi
mpirun --oversubscribe -np 2 "$bin/tpu-sim-mpi" --cores 4 --timeline "$work/t.json" "$work/deadlock.bin" >/dev/null 2>"$work/tl.err"
rc=$?
if [ $rc = 2 ] && grep -q "run on one rank" "$work/tl.err"; then ok "--timeline under MPI: exit 2"
else bad "--timeline under MPI: exit $rc $(head -n 1 "$work/tl.err")"; fi
mpirun --oversubscribe -np 3 "$bin/tpu-sim-mpi" --cores 2 "$work/matmul-2chip.bin" >/dev/null 2>"$work/np.err"
rc=$?
if [ $rc = 2 ] && grep -q "every rank needs a core" "$work/np.err"; then ok "3 ranks for 2 cores: exit 2"
else bad "3 ranks for 2 cores: exit $rc $(head -n 1 "$work/np.err")"; fi

finish mpi
