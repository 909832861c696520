"""tpumodel: the cycle-accurate TPU core model (cmodel/) from Python.

    PYTHONPATH=python python3 -c 'import tpumodel'     # after `make pylib`

Assemble a program, build a system, run it and get tpu-sim --json's report
as a dict, read and write memory as NumPy arrays, step cycle by cycle and
look at the units, call the kernel generator (gemm), round to bf16 the
model's way.  docs/python.md is the manual.
"""
from ._lib import TpuError, path as library_path
from ._core import (DEFAULT_MAX_CYCLES, Config, Program, System, assemble, load_object,
                    parse_object, presets, run)
from .bf16 import bf16_to_f32, f32_to_bf16, golden, round_bf16
from .kernels import gemm, gemm_program, model_bf16, model_f32, ref_matmul

__all__ = ["TpuError", "Config", "Program", "System", "assemble", "load_object", "parse_object",
           "presets", "run", "gemm", "gemm_program", "ref_matmul", "model_bf16", "model_f32",
           "f32_to_bf16", "bf16_to_f32", "round_bf16", "golden", "DEFAULT_MAX_CYCLES",
           "library_path"]
