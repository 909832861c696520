"""The package's API: configs, systems, stepping and the unit views, memory
by address and label, Ctrl-C, and the errors (TpuError with the C message)."""
import os
import signal

import numpy as np
import pytest

import tpumodel as tm


def test_config():
    c = tm.Config("mid", set={"hbm_latency": 7})
    assert c.name == "mid" and c.mxu_n == 16 and c["hbm_latency"] == 7
    assert c.as_dict()["num_mxu"] == 2
    assert tm.Config("programs/tut4.cfg").mxu_n == 4
    assert "v5e" in tm.presets()


@pytest.mark.parametrize("call,match", [
    (lambda: tm.Config("nosuch"), "config nosuch"),
    (lambda: tm.Config("tiny", set=["nokey=1"]), "nokey"),
    (lambda: tm.Config("tiny", set={"mxu_n": 0}), "mxu_n"),
    (lambda: tm.System("tiny", cores=2, topology="single"), "one core"),
    (lambda: tm.System("tiny", cores=4, topology="torus2d", grid=(3, 2)), "does not match"),
    (lambda: tm.System("tiny", cores=2, topology="hypercube"), "hypercube"),
    (lambda: tm.System("tiny", cores=2, grid=(1, 2)), "torus2d or mesh2d"),
    (lambda: tm.System("tiny", cores=8, topology="torus3d", grid=(2, 2, 3)), "does not match"),
    (lambda: tm.System("tiny", cores=8, topology="torus3d", grid=(2, 4)), "three numbers"),
    (lambda: tm.System("tiny", cores=8, topology="torus2d", grid=(2, 2, 2)), "needs topology torus3d"),
    (lambda: tm.assemble(source="  nop\n  bogus s1\n"), r"<source>:2:\d+: error"),
    (lambda: tm.assemble(source="halt\n", defines=["1X=2"]), "-D 1X=2"),
    (lambda: tm.assemble(source="li s1, Q\nhalt\n"), "Q"),
    (lambda: tm.parse_object(b"not an object"), "object|header|magic|short"),
    (lambda: tm.load_object("/nonexistent/x.bin"), "nonexistent"),
])
def test_errors(call, match):
    with pytest.raises(tm.TpuError, match=match):
        call()


def test_load_errors_and_memory_errors():
    p = tm.assemble("programs/tutorial_4x4.s", config="programs/tut4.cfg")
    with pytest.raises(tm.TpuError, match="mxu_n = 4, the config has 8"):
        tm.System("tiny", program=p)
    s = tm.System("programs/tut4.cfg", program=p)
    with pytest.raises(tm.TpuError, match="out of range"):
        s.read(1 << 40, 4)
    with pytest.raises(tm.TpuError, match="no label 'nope'"):
        s.read("nope", 4)
    with pytest.raises(tm.TpuError, match="core 3 out of range"):
        s.read(0, 4, core=3)
    with pytest.raises(tm.TpuError, match="space"):
        s.read(0, 4, space="dram")
    with pytest.raises(tm.TpuError, match="MXU 5 out of range"):
        s.mxu(5)
    with pytest.raises(tm.TpuError, match="v99"):
        s.vreg(99)
    with pytest.raises(tm.TpuError, match="no program"):
        tm.System("tiny").run()


def test_memory_by_label_and_address():
    p = tm.assemble("programs/matmul_tile.s", config="tiny")
    s = tm.System(program=p)                 # the object's preset, as tpu-sim picks it
    assert s.config.name == "tiny"
    space, addr = p.labels["W"]
    w_bits = s.read("W", (8, 8), np.uint16)
    assert np.array_equal(w_bits, s.read(addr, (8, 8), np.uint16, space=space))
    assert np.array_equal(s.read("W", (8, 8), "bf16"), tm.bf16_to_f32(w_bits))
    # write by label, read back
    new = np.arange(64, dtype=np.float32).reshape(8, 8) / 7
    s.write("W", new, "bf16")
    assert np.array_equal(s.read("W", (8, 8), "bf16"), tm.round_bf16(new))
    s.write(addr, w_bits, space=space)      # put it back
    rep = s.run()
    assert rep["result"] == "bit-exact"
    y = s.read("Y", (8, 8), np.float32)
    x = s.read("X", (8, 8), np.uint16)
    assert np.array_equal(y.view(np.uint32), tm.ref_matmul(x, w_bits, 8).view(np.uint32))


def test_stepping_and_views():
    p = tm.assemble("programs/matmul_tile.s", config="tiny")
    whole = tm.System(program=p)
    want = whole.run()
    s = tm.System(program=p)
    active_seen = 0
    psums = []
    while s.step() == "running":
        cells = s.mxu(0)
        if cells["active"].any():
            active_seen += 1
            psums.append(cells["psum_f"][cells["active"]].sum())
        assert s.cycle < want["cycles"]
    assert s.stop == "halt" and s.cycle == want["cycles"] and active_seen > 0
    assert s.report(program_name="x") == whole.report(program_name="x")
    # after the run, MXU 0 holds W's tile as its active weights
    assert np.array_equal(s.mxu(0)["weight"], s.read("W", (8, 8), np.uint16))
    cell = s.mxu_cell(2, 3)
    assert cell["weight"] == s.read("W", (8, 8), np.uint16)[2, 3]
    seq = s.seq()
    assert seq["halted"] and seq["sreg"].shape == (32,) and seq["sem"].dtype == np.uint32
    st = s.stats()
    assert st["cycles"] == want["cycles"] and st["units"]["mxu0"]["busy_cycles"] > 0
    assert st["macs"] == want["macs"]
    pr = s.probe()
    assert pr["halted"] == 1 and len(pr["dma"]) == s.config.dma_engines
    assert s.vreg(0).shape == (s.config.vpu_sublanes, s.config.vpu_lanes)


def test_step_n_and_cycle_limit():
    p = tm.assemble("programs/matmul_tile.s", config="tiny")
    s = tm.System(program=p)
    assert s.step(10) == "running" and s.cycle == 10
    rep = s.run(max_cycles=20)
    assert rep["stop"] == "cycle-limit" and s.cycle == 20 and "cycle limit" in rep["error"]
    rep = s.run()                            # goes on from there
    assert rep["stop"] == "halt" and rep["result"] == "bit-exact"
    with pytest.raises(tm.TpuError, match="cycle limit"):
        tm.System(program=p).run(max_cycles=5, check=True)


def test_runtime_error_is_reported():
    p = tm.assemble(source="li s1, 0x7ffffff0\nvld v0, s1, 0\nhalt\n")
    s = tm.System("tiny", program=p)
    rep = s.run()
    assert rep["stop"] == "error" and "out of range" in rep["error"]
    assert s.error == rep["error"]
    with pytest.raises(tm.TpuError, match="out of range"):
        s.check()


def test_several_cores():
    p = tm.assemble("programs/allgather.s", config="tiny", defines={"K": 4})
    s, rep = tm.run(p, "tiny", cores=4, threads=2)
    assert rep["cores"] == 4 and rep["topology"] == "ring" and rep["result"] == "bit-exact"
    s1, rep1 = tm.run(p, "tiny", cores=4, threads=0)     # the plain loop: the same run
    assert rep1 == rep and s1.windows == 0
    out = [s.read("OUT", 64, np.uint8, space="vmem", core=c) for c in range(4)]
    assert all(np.array_equal(out[0], o) for o in out[1:])
    t = tm.System("tiny", cores=4, topology="torus2d")
    assert t.topology == "torus2d 2x2"
    p3 = tm.assemble("programs/torus3d.s", config="tiny", defines={"X": 3, "Y": 2, "Z": 2})
    s3, rep3 = tm.run(p3, "tiny", cores=12, topology="torus3d", grid=(3, 2, 2), threads=2)
    assert rep3["topology"] == "torus3d 3x2x2" and rep3["result"] == "bit-exact"
    assert tm.System("tiny", cores=12, topology="torus3d").topology == "torus3d 3x2x2"


class _SigintAfter:
    """The library, with a real SIGINT sent to this process after the
    n-th slice of System.run: Python's handler raises KeyboardInterrupt
    there, as it would for Ctrl-C at that moment."""

    def __init__(self, real, n):
        self.real, self.n, self.calls = real, n, 0

    def __getattr__(self, name):
        return getattr(self.real, name)

    def tpy_system_run(self, *args):
        r = self.real.tpy_system_run(*args)
        self.calls += 1
        if self.calls == self.n:
            os.kill(os.getpid(), signal.SIGINT)
        return r


def test_ctrl_c_leaves_the_model_usable(monkeypatch):
    src, plan = tm.gemm_program(256, 512, 512, "tiny")
    p = tm.assemble(source=src, config="tiny")
    want = tm.run(p)[1]
    s = tm.System(program=p)
    monkeypatch.setattr(tm._core, "lib", _SigintAfter(tm._core.lib, 3))
    # Python's own handler, which raises KeyboardInterrupt: a process
    # started in the background by a non-interactive shell (`make test &`)
    # inherits SIGINT ignored, and Python then installs no handler.
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            s.run()
    finally:
        signal.signal(signal.SIGINT, old)
    monkeypatch.undo()
    stopped = s.cycle
    assert 0 < stopped < want["cycles"] and s.stop == "interrupted"
    rep = s.report()
    assert rep["stop"] == "interrupted" and rep["cycles"] == stopped and rep["error"] is None
    s.step(3)                                # still steps
    assert s.cycle == stopped + 3
    rep = s.run()                            # and runs on to the end, bit-exact
    assert rep["stop"] == "halt" and rep["result"] == "bit-exact"
    assert rep == want
