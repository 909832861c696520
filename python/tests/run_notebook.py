"""run_notebook.py NOTEBOOK [OUT.ipynb] - execute a notebook headless, as
`make test` does for docs/notebooks/*.ipynb (tests/suite/python.t).

With Debian's python3-nbclient and python3-ipykernel, the notebook runs
in a real kernel (nbclient), from its own folder, and the executed copy is
written to OUT.ipynb.  Without them, its code cells run in order in one
namespace of this python3 (a note says so).  Matplotlib uses Agg.  Exit
status 0 when every cell ran, 1 when one failed (its error printed).
"""
import os
import sys
import traceback


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    path = os.path.abspath(sys.argv[1])
    out = sys.argv[2] if len(sys.argv) > 2 else None
    os.environ.setdefault("MPLBACKEND", "Agg")
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")   # ipykernel's debugger note
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    pp = os.path.join(root, "python")
    os.environ["PYTHONPATH"] = pp + (os.pathsep + os.environ["PYTHONPATH"]
                                     if os.environ.get("PYTHONPATH") else "")
    import nbformat
    nb = nbformat.read(path, as_version=4)
    try:
        from nbclient import NotebookClient
        from jupyter_client.kernelspec import KernelSpecManager
        KernelSpecManager().get_kernel_spec(nb.metadata.get("kernelspec", {})
                                            .get("name", "python3"))
        import ipykernel                             # noqa: F401 (the kernel's own module)
        kernel = None
    except Exception as e:                           # ImportError, NoSuchKernel
        kernel = e
    if kernel is not None:                           # no kernel: the code cells in order
        e = kernel
        print("note: no Jupyter kernel (%s): running the code cells with %s"
              % (e, sys.executable))
        sys.path.insert(0, pp)
        ns = {"__name__": "__main__"}
        cwd = os.getcwd()
        os.chdir(os.path.dirname(path))
        try:
            for i, cell in enumerate(nb.cells):
                if cell.cell_type == "code":
                    try:
                        exec(compile(cell.source, "%s [cell %d]" % (path, i), "exec"), ns)
                    except Exception:
                        traceback.print_exc()
                        return 1
        finally:
            os.chdir(cwd)
        return 0
    from nbclient.exceptions import CellExecutionError
    client = NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": os.path.dirname(path)}})
    try:
        client.execute()
    except CellExecutionError as e:
        print(str(e))
        return 1
    finally:
        if out:
            nbformat.write(nb, out)
    for cell in nb.cells:                            # the notebook's printed lines
        for o in cell.get("outputs", []):
            if o.get("output_type") == "stream":
                sys.stdout.write(o.get("text", ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
