"""Runs the selected workloads under one implementation and prints `name<TAB>seconds` lines.

Started by bench/run.py as a separate process per implementation, so TensorFlow and tensorflux never
share an interpreter.
"""
import importlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads  # noqa: E402


def main():
    impl, names = sys.argv[1], sys.argv[2:]
    if impl == "tensorflow":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    tf = importlib.import_module(impl)
    for name in names:
        group, fn = workloads.WORKLOADS[name]
        try:
            seconds = fn(tf)
            print(f"{name}\t{seconds!r}", flush=True)
        except Exception as e:  # a workload the implementation cannot run is reported, not fatal
            print(f"{name}\tERROR {type(e).__name__}: {str(e).splitlines()[0][:80] if str(e) else ''}",
                  flush=True)


if __name__ == "__main__":
    main()
