"""Shared by the package's tests (python/tests/, run by tests/suite/python.t):
the checkout, the tools (TPU_BIN, default build/bin) and a scratch folder."""
import os
import sys

import pytest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
os.chdir(ROOT)          # programs/ and the .cfg files named relative to the checkout


@pytest.fixture(scope="session")
def root():
    return ROOT


@pytest.fixture(scope="session")
def bindir():
    d = os.environ.get("TPU_BIN", os.path.join(ROOT, "build", "bin"))
    return d if os.path.isabs(d) else os.path.join(ROOT, d)


@pytest.fixture(scope="session")
def work(tmp_path_factory):
    d = os.environ.get("TPU_WORK")
    if d:
        d = d if os.path.isabs(d) else os.path.join(ROOT, d)
        os.makedirs(d, exist_ok=True)
        return d
    return str(tmp_path_factory.mktemp("tpumodel"))
