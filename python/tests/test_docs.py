"""The Python in the docs runs and prints what the docs say: each ```python
block of docs/python.md and docs/tutorial.md runs in order in one namespace
per page (from the checkout's root), and a ```text block right after one
is what it must print, character for character."""
import contextlib
import io
import re

import numpy as np
import pytest

DOCS = ["docs/tutorial.md", "docs/python.md"]


def _blocks(path):
    text = open(path).read()
    out = []
    for m in re.finditer(r"```python\n(.*?)```\n(?:\n```text\n(.*?)```\n)?", text, re.S):
        line = text.count("\n", 0, m.start()) + 1
        out.append((line, m.group(1), m.group(2)))
    return out


@pytest.mark.parametrize("doc", DOCS)
def test_doc_python(doc):
    blocks = _blocks(doc)
    assert blocks, "no ```python block in " + doc
    ns = {"__name__": "__doc__"}
    np.set_printoptions()                    # each page sets its own
    for line, code, want in blocks:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            exec(compile(code, "%s:%d" % (doc, line), "exec"), ns)
        if want is not None:
            assert buf.getvalue() == want, "%s:%d prints\n%s" % (doc, line, buf.getvalue())
