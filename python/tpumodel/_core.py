"""Configs, programs and systems: the C model through sim/py/tpu_py.c."""
import ctypes
import json
import os
import time

import numpy as np

from . import _lib
from ._lib import TpuError, lib

SPACES = {"imem": 1, "hbm": 2, "vmem": 3}
SPACE_NAMES = {v: k for k, v in SPACES.items()}
STOPS = {0: "running", 1: "halt", 2: "error", 3: "cycle-limit", 4: "break"}
_RUNNING, _HALT, _ERROR, _LIMIT, _BREAK = range(5)

DEFAULT_MAX_CYCLES = 1000000000     # tpu-sim's --max-cycles default

# Wall time of one slice of System.run: Ctrl-C is seen between two.
SLICE_SECONDS = 0.05


def _sets(set_):
    """--set overrides from a dict {key: value} or a list of "key=value"."""
    if not set_:
        return []
    if isinstance(set_, dict):
        return ["%s=%s" % (k, v) for k, v in set_.items()]
    if isinstance(set_, str):
        return [set_]
    return [str(s) for s in set_]


def _value(text):
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def presets():
    """The names of the compiled-in config presets, in tpu-sim's order."""
    return _lib.take_string(lib.tpy_presets()).split()


class Config:
    """A machine: a preset name or a .cfg file, with KEY=VALUE overrides
    (tpu-sim's --config and --set).  `cfg['mxu_n']`, `cfg.mxu_n` and
    `cfg.as_dict()` read its keys (docs/config.md)."""

    def __init__(self, name=None, set=None, *, program=None):
        sets = _sets(set)
        if isinstance(name, Config):            # its overrides, then these
            sets = name.sets + sets
            name = name.source or name.name    # (a preset picked for a program)
        err = _lib.errbuf()
        arr, keep = _lib.cstrings(sets)
        self._h = lib.tpy_config_new(name.encode() if name else None,
                                     program._h if program is not None else None,
                                     arr, len(sets), err, len(err))
        if not self._h:
            _lib.raise_err(err)
        self.source = name
        self.sets = sets
        self._dict = {}
        for line in _lib.take_string(lib.tpy_config_text(self._h)).splitlines():
            k, _, v = line.partition(" = ")
            self._dict[k] = _value(v)

    def __del__(self):
        if getattr(self, "_h", None):
            lib.tpy_config_free(self._h)
            self._h = None

    @property
    def name(self):
        return self._dict["name"]

    def as_dict(self):
        return dict(self._dict)

    def __getitem__(self, key):
        return self._dict[key]

    def __getattr__(self, key):
        d = self.__dict__.get("_dict")
        if d is not None and key in d:
            return d[key]
        raise AttributeError(key)

    def __repr__(self):
        return "Config(%r%s)" % (self.name, ", set=%r" % self.sets if self.sets else "")


def _config(config, set_=None, program=None):
    if isinstance(config, Config) and not set_:
        return config
    return Config(config, set_, program=program)


class Program:
    """An object file in memory: from assemble(), load_object() or gemm()."""

    def __init__(self, handle, name):
        self._h = handle
        self.name = name
        self.symbols = {}
        n = lib.tpy_obj_nsyms(handle)
        sp, val = ctypes.c_int(), ctypes.c_uint64()
        for i in range(n):
            nm = lib.tpy_obj_sym(handle, i, ctypes.byref(sp), ctypes.byref(val))
            self.symbols[nm.decode()] = (SPACE_NAMES.get(sp.value, "none"), val.value)
        shape = (ctypes.c_uint32 * 4)()
        lib.tpy_obj_shape(handle, shape)
        self.shape = tuple(shape)       # mxu_n, num_mxu, vpu_sublanes, vpu_lanes (0: any)

    def __del__(self):
        if getattr(self, "_h", None):
            lib.tpy_obj_free(self._h)
            self._h = None

    @property
    def ninstructions(self):
        return lib.tpy_obj_ntext(self._h)

    @property
    def nexpects(self):
        return lib.tpy_obj_nexpects(self._h)

    @property
    def labels(self):
        """The data labels: {name: (space, address)} (code labels left out)."""
        return {k: v for k, v in self.symbols.items() if v[0] in ("hbm", "vmem")}

    def to_bytes(self):
        """The object file as tpu-as writes it (docs/object-format.md)."""
        n = ctypes.c_size_t()
        p = lib.tpy_obj_serialize(self._h, ctypes.byref(n))
        if not p:
            raise TpuError("out of memory")
        try:
            return ctypes.string_at(p, n.value)
        finally:
            lib.tpy_free(p)

    def save(self, path):
        with open(path, "wb") as f:
            f.write(self.to_bytes())

    def __repr__(self):
        return "Program(%r, %d instructions)" % (self.name, self.ninstructions)


def assemble(path=None, *, source=None, config=None, defines=None, include=(), name=None):
    """Assemble a source file (path) or text (source=) as tpu-as does:
    config (a preset, a .cfg file or a Config; None: tpu-as's choice, the
    .target's preset or tiny), defines {NAME: VALUE} or ["NAME=VALUE"] (-D),
    include folders (-I).  Returns a Program; errors raise TpuError with
    the assembler's gcc-style lines."""
    if (path is None) == (source is None):
        raise TypeError("assemble() takes a path or source=, one of them")
    if source is None:
        path = os.fspath(path)
        with open(path, "rb") as f:
            src = f.read()
        filename = path
    else:
        src = source.encode() if isinstance(source, str) else bytes(source)
        filename = name or "<source>"
    cfg = None if config is None else _config(config)
    if isinstance(defines, dict):
        defs = ["%s=%s" % (k, v) for k, v in defines.items()]
    else:
        defs = [str(d) for d in (defines or ())]
    darr, dkeep = _lib.cstrings(defs)
    incs = [os.fspath(d) for d in include]
    iarr, ikeep = _lib.cstrings(incs)
    err = _lib.errbuf()
    h = lib.tpy_assemble(src, len(src), filename.encode(), cfg._h if cfg else None,
                         darr, len(defs), iarr, len(incs), err, len(err))
    if not h:
        _lib.raise_err(err)
    return Program(h, name or filename)


def load_object(path):
    """Read an object file (tpu-as's .bin)."""
    err = _lib.errbuf()
    h = lib.tpy_obj_read(os.fspath(path).encode(), err, len(err))
    if not h:
        _lib.raise_err(err)
    return Program(h, os.fspath(path))


def parse_object(data, name="<bytes>"):
    """An object file from its bytes."""
    err = _lib.errbuf()
    data = bytes(data)
    h = lib.tpy_obj_parse(data, len(data), err, len(err))
    if not h:
        _lib.raise_err(err)
    return Program(h, name)


_DTYPES = {"bf16": np.uint16}


def _np_dtype(dtype):
    if isinstance(dtype, str) and dtype in _DTYPES:
        return np.dtype(_DTYPES[dtype])
    return np.dtype(dtype)


class System:
    """k cores on one clock, as tpu-sim builds them: a config (preset,
    .cfg file or Config; None: the program's preset, as tpu-sim picks it),
    set overrides, cores, topology (single, ring, torus2d, mesh2d, torus3d),
    grid (rows, cols; a torus3d's (X, Y, Z)), host threads (None: the CPUs,
    as tpu-sim).  With a
    program, it is loaded at once."""

    def __init__(self, config=None, *, program=None, set=None, cores=1, topology=None,
                 grid=None, threads=None):
        self.config = _config(config, set, program)
        depth = 0
        if grid and len(grid) == 3:
            cols, rows, depth = grid            # X, Y, Z
        else:
            rows, cols = grid if grid else (0, 0)
        if threads is None:
            threads = os.cpu_count() or 1
        err = _lib.errbuf()
        self._h = lib.tpy_system_new(self.config._h, int(cores or 0),
                                     topology.encode() if topology else None, int(rows),
                                     int(cols), int(depth), int(threads), err, len(err))
        if not self._h:
            _lib.raise_err(err)
        self.topology = lib.tpy_system_topology(self._h).decode()
        self.ncores = lib.tpy_system_ncores(self._h)
        self.program = None
        self._stop = _RUNNING
        self._interrupted = False
        self._max_cycles = DEFAULT_MAX_CYCLES
        self._report = None
        self._slice = 4096
        if program is not None:
            self.load(program)

    def __del__(self):
        if getattr(self, "_h", None):
            lib.tpy_system_free(self._h)
            self._h = None

    def __repr__(self):
        return "System(%r, cores=%d, topology=%r, cycle=%d, %s)" % (
            self.config.name, self.ncores, self.topology, self.cycle, self.stop)

    # ---- program ----------------------------------------------------------
    def load(self, program):
        """Load a Program (or an object file's path) into every core."""
        if not isinstance(program, Program):
            program = load_object(program)
        err = _lib.errbuf()
        if lib.tpy_system_load(self._h, program._h, err, len(err)):
            _lib.raise_err(err, program.name)
        self.program = program          # the model reads it while it runs
        self._report = None
        return self

    # ---- running ----------------------------------------------------------
    @property
    def cycle(self):
        return lib.tpy_system_cycle(self._h)

    @property
    def stop(self):
        """How the last run ended: running, halt, error, cycle-limit, break
        (or interrupted)."""
        return "interrupted" if self._interrupted else STOPS[self._stop]

    @property
    def error(self):
        """The run-time error line, or ''."""
        return lib.tpy_system_error(self._h).decode()

    @property
    def windows(self):
        """Windows the cores ran apart on host threads so far."""
        return lib.tpy_system_windows(self._h)

    def _need_program(self):
        if self.program is None:
            raise TpuError("no program loaded")

    def run(self, max_cycles=DEFAULT_MAX_CYCLES, *, check=False):
        """Run to halt (or error, or cycle max_cycles from reset; 0: no
        limit) and return the report, tpu-sim --json's dict.  Runs in
        slices: Ctrl-C raises KeyboardInterrupt at a cycle boundary and
        leaves the system as it is (report() has the run so far, run()
        goes on).  check=True raises TpuError unless the run halted and its
        .expect results (if any) are bit-exact."""
        self._need_program()
        max_cycles = int(max_cycles or 0)
        if max_cycles < 0:
            raise TpuError("max_cycles must be 0 (no limit) or positive, not %d" % max_cycles)
        self._max_cycles = max_cycles
        self._interrupted = False
        self._report = None
        try:
            while True:
                now = self.cycle
                lim = now + self._slice
                if max_cycles and (now >= max_cycles or lim > max_cycles):
                    lim = max_cycles
                t0 = time.monotonic()
                r = lib.tpy_system_run(self._h, lim)
                self._stop = r
                if r != _LIMIT or lim == max_cycles:
                    break
                dt = time.monotonic() - t0
                grow = SLICE_SECONDS / dt if dt > 0 else 4.0
                self._slice = int(min(max(self._slice * min(grow, 4.0), 256), 1 << 22))
        except KeyboardInterrupt:
            self._stop = _BREAK
            self._interrupted = True
            raise
        rep = self.report()
        if check:
            self.check(rep)
        return rep

    def check(self, report=None):
        """Raise TpuError unless the run halted and its results are
        bit-exact (or it has no .expect)."""
        rep = report or self.report()
        if rep["stop"] != "halt":
            raise TpuError(rep.get("error") or "the run stopped: %s" % rep["stop"])
        if rep["result"] not in ("bit-exact", "none"):
            raise TpuError(rep.get("result_message") or rep["result"])
        return rep

    def step(self, n=1):
        """Run n cycles (fewer if it stops); returns the stop state."""
        self._need_program()
        self._interrupted = False
        self._report = None
        left = int(n)
        try:
            while True:                  # in chunks, so that Ctrl-C is seen
                k = min(left, 65536)
                self._stop = lib.tpy_system_step(self._h, k)
                left -= k
                if self._stop != _RUNNING or left <= 0:
                    break
        except KeyboardInterrupt:
            self._stop = _BREAK
            self._interrupted = True
            raise
        return self.stop

    def report(self, program_name=None):
        """tpu-sim --json's report of the run so far, as a dict (the same
        JSON text, from sim/view/report.c, parsed).  The .expect records
        are checked when the run halted."""
        if self._report is None or program_name is not None:
            name = program_name or (self.program.name if self.program else None)
            text = _lib.take_string(lib.tpy_report_json(
                self._h, self.program._h if self.program else None,
                name.encode() if name else None, self._stop, int(self._interrupted),
                self._max_cycles))
            rep = json.loads(text)
            if program_name is not None:
                return rep
            self._report = rep
        return self._report

    def report_json(self, program_name=None):
        """The report as tpu-sim --json prints it (one line and a newline)."""
        name = program_name or (self.program.name if self.program else None)
        return _lib.take_string(lib.tpy_report_json(
            self._h, self.program._h if self.program else None,
            name.encode() if name else None, self._stop, int(self._interrupted),
            self._max_cycles))

    # ---- memory -----------------------------------------------------------
    def _where(self, where, space):
        if isinstance(where, str):
            if self.program is None or where not in self.program.symbols:
                raise TpuError("no label '%s' in the program" % where)
            sp, addr = self.program.symbols[where]
            if sp not in ("hbm", "vmem"):
                raise TpuError("'%s' is a code label, not data" % where)
            return SPACES[sp], addr
        if space not in SPACES:
            raise TpuError("space is hbm, vmem or imem, not %r" % (space,))
        addr = int(where)
        if addr < 0:
            raise TpuError("negative address %d" % addr)
        return SPACES[space], addr

    def _core(self, core):
        core = int(core)
        if not 0 <= core < self.ncores:
            raise TpuError("core %d out of range (the system has %d)" % (core, self.ncores))
        return core

    def read_bytes(self, where, nbytes, *, space="hbm", core=0):
        """nbytes bytes at an address (of space) or a data label."""
        sp, addr = self._where(where, space)
        buf = ctypes.create_string_buffer(max(int(nbytes), 1))
        err = _lib.errbuf()
        if lib.tpy_mem_read(self._h, self._core(core), sp, addr, buf, int(nbytes), err,
                            len(err)):
            _lib.raise_err(err)
        return buf.raw[:int(nbytes)]

    def read(self, where, shape, dtype=np.float32, *, space="hbm", core=0):
        """An array of `shape` (a count or a tuple) of dtype at an address
        or a data label.  dtype "bf16" gives float32 values widened from
        bf16 the model's way; np.uint16 the raw bf16 bits."""
        shape = (int(shape),) if np.isscalar(shape) else tuple(int(s) for s in shape)
        dt = _np_dtype(dtype)
        n = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
        a = np.frombuffer(self.read_bytes(where, n, space=space, core=core), dtype=dt)
        a = a.reshape(shape).copy()
        if isinstance(dtype, str) and dtype == "bf16":
            from .bf16 import bf16_to_f32
            a = bf16_to_f32(a)
        return a

    def write(self, where, data, dtype=None, *, space="hbm", core=0):
        """Write an array (or bytes) at an address or a data label; dtype
        "bf16" rounds float values to bf16 the model's way first, another
        dtype converts to it (default: the array's own)."""
        if isinstance(data, (bytes, bytearray, memoryview)):
            raw = bytes(data)
        else:
            if isinstance(dtype, str) and dtype == "bf16":
                from .bf16 import f32_to_bf16
                arr = f32_to_bf16(np.asarray(data, dtype=np.float32))
            else:
                arr = np.asarray(data, dtype=dtype) if dtype is not None else np.asarray(data)
            raw = np.ascontiguousarray(arr).tobytes()
        sp, addr = self._where(where, space)
        err = _lib.errbuf()
        buf = ctypes.create_string_buffer(raw, max(len(raw), 1))
        if lib.tpy_mem_write(self._h, self._core(core), sp, addr, buf, len(raw), err, len(err)):
            _lib.raise_err(err)
        self._report = None

    # ---- views ------------------------------------------------------------
    def seq(self, core=0):
        """The sequencer: pc, halted, sreg (32 int64), sem (32), stall."""
        pc, halted = ctypes.c_uint64(), ctypes.c_int()
        sreg = np.zeros(32, np.int64)
        sem = np.zeros(32, np.uint32)
        stall = ctypes.create_string_buffer(256)
        err = _lib.errbuf()
        if lib.tpy_seq_view(self._h, self._core(core), ctypes.byref(pc), ctypes.byref(halted),
                            sreg.ctypes.data, sem.ctypes.data, stall, len(stall), err,
                            len(err)):
            _lib.raise_err(err)
        return {"pc": pc.value, "halted": bool(halted.value), "sreg": sreg, "sem": sem,
                "stall": stall.value.decode() or None}

    def mxu(self, mxu=0, core=0):
        """Every cell of an MXU in the current cycle (tpu_core_mxu_cell), as
        N x N arrays indexed [k, col]: weight, shadow, chain (bf16 bits,
        uint16), loading, active, i8 (bool), row (int64), x (bf16 bits),
        psum (fp32 bits, uint32); weight_f, shadow_f, x_f, psum_f the values
        as float32."""
        n = int(self.config.mxu_n)
        a = {"weight": np.zeros((n, n), np.uint16), "shadow": np.zeros((n, n), np.uint16),
             "loading": np.zeros((n, n), np.uint8), "chain": np.zeros((n, n), np.uint16),
             "active": np.zeros((n, n), np.uint8), "row": np.zeros((n, n), np.int64),
             "x": np.zeros((n, n), np.uint16), "psum": np.zeros((n, n), np.uint32),
             "i8": np.zeros((n, n), np.uint8)}
        err = _lib.errbuf()
        order = ("weight", "shadow", "loading", "chain", "active", "row", "x", "psum", "i8")
        if lib.tpy_mxu_cells(self._h, self._core(core), int(mxu),
                             *[a[k].ctypes.data for k in order], err, len(err)):
            _lib.raise_err(err)
        from .bf16 import bf16_to_f32
        for k in ("loading", "active", "i8"):
            a[k] = a[k].astype(bool)
        for k in ("weight", "shadow", "x"):
            a[k + "_f"] = bf16_to_f32(a[k])
        a["psum_f"] = a["psum"].view(np.float32)
        return a

    def mxu_cell(self, k, col, mxu=0, core=0):
        """One cell as a dict of numbers (the same fields as mxu())."""
        cells = self.mxu(mxu, core)
        return {name: (v[k, col].item()) for name, v in cells.items()}

    def vreg(self, r, core=0):
        """Vector register r as a vpu_sublanes x vpu_lanes float32 array."""
        s, l = int(self.config.vpu_sublanes), int(self.config.vpu_lanes)
        dst = np.zeros((s, l), np.uint32)
        err = _lib.errbuf()
        if lib.tpy_vreg(self._h, self._core(core), int(r), dst.ctypes.data, err, len(err)):
            _lib.raise_err(err)
        return dst.view(np.float32)

    def stats(self, core=0):
        """One core's counters (tpu_stats) as a dict."""
        err = _lib.errbuf()
        p = lib.tpy_stats_json(self._h, self._core(core), err, len(err))
        if not p:
            _lib.raise_err(err)
        return json.loads(_lib.take_string(p))

    def probe(self, core=0):
        """The units' registers (probe.h): queues, DMA engines, MXU streams,
        ICI ports."""
        err = _lib.errbuf()
        p = lib.tpy_probe_json(self._h, self._core(core), err, len(err))
        if not p:
            _lib.raise_err(err)
        return json.loads(_lib.take_string(p))


def run(program, config=None, *, set=None, cores=1, topology=None, grid=None, threads=None,
        max_cycles=DEFAULT_MAX_CYCLES, check=False):
    """Load and run a Program (or object file) as `tpu-sim --json` does;
    returns (system, report)."""
    if not isinstance(program, Program):
        program = load_object(program)
    s = System(config, program=program, set=set, cores=cores, topology=topology, grid=grid,
               threads=threads)
    rep = s.run(max_cycles, check=check)
    return s, rep
