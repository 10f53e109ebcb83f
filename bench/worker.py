"""Runs the selected workloads under one implementation and prints `name<TAB>seconds<TAB>fingerprint` lines
(the fingerprint, a JSON list from workloads.summary, is empty for workloads whose result is random).

Started by bench/run.py as a separate process per implementation, so TensorFlow, JAX and tensorflux never
share an interpreter. `tensorflux` and `tensorflow` run bench/workloads.py; `jax` runs
bench/jax_workloads.py, where a workload without a JAX version prints `-`.
"""
import importlib
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads  # noqa: E402


def _table(impl):
    if impl == "jax":
        import jax_workloads
        return jax_workloads.WORKLOADS
    return {name: fn for name, (_, fn) in workloads.WORKLOADS.items()}


def main():
    impl, names = sys.argv[1], sys.argv[2:]
    if impl == "tensorflow":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    lib = importlib.import_module(impl)
    if impl == "jax":
        importlib.import_module("jax.numpy")
    table = _table(impl)
    for name in names:
        fn = table.get(name)
        if fn is None:
            print(f"{name}\t-\t", flush=True)
            continue
        try:
            result = fn(lib)
            seconds, value = result if isinstance(result, tuple) else (result, None)
            fingerprint = json.dumps(workloads.summary(value)) if value is not None else ""
            print(f"{name}\t{seconds!r}\t{fingerprint}", flush=True)
        except Exception as e:  # a workload the implementation cannot run is reported, not fatal
            print(f"{name}\tERROR {type(e).__name__}: {str(e).splitlines()[0][:80] if str(e) else ''}\t",
                  flush=True)


if __name__ == "__main__":
    main()
