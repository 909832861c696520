"""Every program of programs/ through the package and through the tools:
the object is tpu-as's byte for byte, the report is tpu-sim --json's byte
for byte, and every data label's memory (each core) is what the stepper
(tpu-sim --step, `x ... as hex`) shows after the same run."""
import json
import os
import re
import subprocess

import numpy as np
import pytest

import tpumodel as tm

ROOT = os.getcwd()


def _runs():
    """(name, source, config, defines, cores) of each run of programs/ on tiny
    that halts on one core or a ring, from the program manifest
    (programs/manifest.txt, through its one reader sim/cosim/manifest.sh)."""
    out = subprocess.run(["bash", "sim/cosim/manifest.sh", "runs", "tiny"], check=True,
                         capture_output=True, text=True, timeout=60).stdout
    runs = []
    for line in out.splitlines():
        name, src, defines, cores, topo, end, _checks = line.split("\t")
        if src.startswith("programs/") and end == "halt" and topo in ("single", "ring"):
            runs.append((name, src, "tiny", [] if defines == "-" else defines.split(","),
                         int(cores)))
    return runs


RUNS = _runs()


def _regions(prog, ncap=1024):
    """(space, address, bytes) from each data label to the next in its space."""
    out = []
    for space in ("hbm", "vmem"):
        addrs = sorted({a for (sp, a) in prog.labels.values() if sp == space})
        for i, a in enumerate(addrs):
            end = addrs[i + 1] if i + 1 < len(addrs) else a + 256
            out.append((space, a, max(1, min(end - a, ncap))))
    return out


def _stepper_dump(bindir, obj, config, cores, regions):
    cmds = ["continue"]
    for c in range(cores):
        cmds.append("core %d" % c)
        for space, a, n in regions:
            cmds.append("x %s 0x%x %d as hex" % (space, a, n))
    cmds.append("quit")
    args = [os.path.join(bindir, "tpu-sim"), "--step", "--cores", str(cores)]
    if config:
        args += ["--config", config]
    out = subprocess.run(args + [obj], input="\n".join(cmds) + "\n", capture_output=True,
                         text=True, timeout=120).stdout
    data = {}
    core = -1
    for line in out.splitlines():
        if line.startswith("core ") and line[5:].strip().isdigit():
            core = int(line[5:])
            continue
        m = re.match(r"(hbm|vmem) 0x([0-9a-f]+): ((?:[0-9a-f]{2} ?)+)$", line)
        if m and core >= 0:
            addr = int(m.group(2), 16)
            for j, byte in enumerate(m.group(3).split()):
                data[(core, m.group(1), addr + j)] = int(byte, 16)
    return data


@pytest.mark.parametrize("name,src,config,defines,cores", RUNS, ids=[r[0] for r in RUNS])
def test_program(bindir, work, name, src, config, defines, cores):
    obj = os.path.join(work, name + ".bin")
    args = [os.path.join(bindir, "tpu-as")]
    if config:
        args += ["--config", config]
    for d in defines:
        args += ["-D", d]
    subprocess.run(args + ["-o", obj, src], check=True, capture_output=True, timeout=60)

    prog = tm.assemble(src, config=config, defines=defines)
    assert prog.to_bytes() == open(obj, "rb").read(), "the object differs from tpu-as's"

    sim = [os.path.join(bindir, "tpu-sim"), "--json", "--cores", str(cores)]
    if config:
        sim += ["--config", config]
    r = subprocess.run(sim + [obj], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    s, rep = tm.run(prog, config, cores=cores)
    assert rep["result"] == "bit-exact" and rep["stop"] == "halt"
    # the same dict, and the same text when the program is named as tpu-sim names it
    want = json.loads(r.stdout)
    assert {**rep, "program": obj} == want
    assert s.report_json(program_name=obj) == r.stdout

    regions = _regions(prog)
    dump = _stepper_dump(bindir, obj, config, cores, regions)
    assert dump, "the stepper printed no memory"
    for c in range(cores):
        for space, a, n in regions:
            got = np.frombuffer(s.read_bytes(a, n, space=space, core=c), np.uint8)
            want_b = np.array([dump[(c, space, a + j)] for j in range(n)], np.uint8)
            assert np.array_equal(got, want_b), "core %d %s 0x%x..+%d differs" % (c, space, a, n)


def test_object_file_round_trip(work):
    prog = tm.assemble("programs/matmul_tile.s", config="tiny")
    path = os.path.join(work, "rt.bin")
    prog.save(path)
    again = tm.load_object(path)
    assert again.to_bytes() == prog.to_bytes()
    assert tm.parse_object(prog.to_bytes()).symbols == prog.symbols
    # the object picks its preset as tpu-sim does (no config given)
    s, rep = tm.run(again)
    assert rep["config"] == "tiny" and rep["result"] == "bit-exact"


@pytest.mark.parametrize("case", ["error", "cycle-limit"])
def test_report_of_a_run_that_does_not_halt(bindir, work, case):
    """The report of a run-time error and of a cycle limit is tpu-sim's too."""
    if case == "error":
        src = os.path.join(work, "bad.s")
        with open(src, "w") as f:
            f.write("        li      s1, 0x7ffffff0\n        vld     v0, s1, 0\n        halt\n")
        limit = []
    else:
        src, limit = "programs/matmul_tile.s", ["--max-cycles", "20"]
    obj = os.path.join(work, case + ".bin")
    subprocess.run([os.path.join(bindir, "tpu-as"), "--config", "tiny", "-o", obj, src],
                   check=True, capture_output=True, timeout=60)
    r = subprocess.run([os.path.join(bindir, "tpu-sim"), "--json"] + limit + [obj],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 3
    s = tm.System(program=tm.load_object(obj))
    rep = s.run(max_cycles=20 if limit else tm.DEFAULT_MAX_CYCLES)
    assert rep["stop"] == case and rep["error"]
    assert s.report_json(program_name=obj) == r.stdout
