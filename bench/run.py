"""tensorflux benchmark suite: prints a table of tensorflux timings and, given `--tf-python PATH`,
TensorFlow's timings for the same workloads measured in the same run, with the ratio.

    python bench/run.py                                  # tensorflux only
    python bench/run.py --tf-python ~/venv-tf/bin/python # side by side with TensorFlow
    python bench/run.py -k eager                         # workloads whose name or group contains "eager"
    python bench/run.py --tf-python ~/venv-tf/bin/python --compare jax [--jax-python ~/venv-jax/bin/python]
                                                         # and JAX (bench/jax_workloads.py), ratios tfx/jax

The frameworks run in separate processes one after another (--rounds N repeats that, interleaved, and
keeps each workload's best time: the machine is shared). Every workload with a deterministic result also
reports a fingerprint of it; the `check` column says whether TensorFlow's and JAX's results agree with
tensorflux's (rtol 1e-4), so a ratio never compares different work.

OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE slow NumPy's BLAS on this machine; the benchmark unsets both for
its own child processes only (never in tests or CI) and prints the BLAS in use.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import workloads  # noqa: E402


def _env():
    env = dict(os.environ)
    env.pop("OPENBLAS_CORETYPE", None)
    env.pop("OPENBLAS_L2_SIZE", None)
    root = os.path.dirname(HERE)
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    return env


def run_impl(python, impl, names):
    """{name: (seconds or message, fingerprint or None)} from one worker process."""
    proc = subprocess.run([python, os.path.join(HERE, "worker.py"), impl, *names], env=_env(),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    results = {}
    for line in proc.stdout.splitlines():
        name, value, fingerprint = (line.split("\t") + ["", ""])[:3]
        results[name] = (value, json.loads(fingerprint) if fingerprint else None)
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-1:] or ["?"]
        for n in names:
            results.setdefault(n, (f"ERROR {tail[0][:80]}", None))
    return results


def best_of(rounds):
    """Merges the results of several rounds of one implementation: the fastest time of each workload."""
    merged = {}
    for results in rounds:
        for name, (value, fingerprint) in results.items():
            old = merged.get(name)
            if old is None or _seconds(value) < _seconds(old[0]):
                merged[name] = (value, fingerprint if fingerprint is not None else old and old[1])
    return merged


def _seconds(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("inf")


def default_jax_python():
    candidate = os.environ.get("JAX_PYTHON") or os.path.expanduser("~/venv-jax/bin/python")
    return candidate if os.path.exists(candidate) else None


def blas_info(python):
    code = ("import numpy\ntry:\n import threadpoolctl\n i=[(x['internal_api'],x.get('architecture')) "
            "for x in threadpoolctl.threadpool_info()]\n print(i)\nexcept ImportError:\n "
            "c=numpy.show_config(mode='dicts')\n print(c.get('Build Dependencies',{}).get('blas',{}))")
    out = subprocess.run([python, "-c", code], env=_env(), stdout=subprocess.PIPE, text=True).stdout
    return out.strip()


def fmt(value):
    try:
        s = float(value)
    except ValueError:
        return value
    if s < 1e-3:
        return f"{s * 1e6:.2f} us"
    if s < 1:
        return f"{s * 1e3:.2f} ms"
    return f"{s:.2f} s"


# Issue 17's bars against JAX (tensorflux time / jax.jit time, measured side by side in one run).
JAX_TARGETS = {
    "traced 100-op chain, scalar": 0.6,
    "while reduce_sum(x)>1: tanh (traced), per call": 0.7,
    "traced identity call": 0.5,
    "trace a fresh 20-line fn with if + tf.range loop": 0.5,
    "training step (fwd+MSE+tape+SGD), traced": 1.0,
    "SequentialModel forward, traced": 1.0,
    "traced 100-op chain, [1000] vector": 1.0,
    "10 elementwise ops on [4M], traced": 1.0,
}


def print_targets(ours, jax):
    """The anchor workloads against their bars (tfx/jax at most the bar)."""
    print("\nissue 17 bars against JAX:")
    print(f"{'workload':<48} {'tfx/jax':>8} {'bar':>6}  met")
    for name, bar in JAX_TARGETS.items():
        if name not in ours:
            continue
        r = ratio(ours[name][0], jax.get(name, ("-",))[0])
        met = "-" if r == "-" else ("yes" if float(r) <= bar else "no")
        print(f"{name:<48} {r:>8} {bar:>6.1f}  {met}")


def ratio(ours, theirs):
    a, b = _seconds(ours), _seconds(theirs)
    return f"{a / b:.3f}" if a != float("inf") and b not in (0.0, float("inf")) else "-"


def check(fingerprints):
    """'ok' when every framework that returned a result agrees with tensorflux's; 'DIFF(impl)' otherwise;
    '' when the workload's result is random (nothing to compare)."""
    ours = fingerprints[0]
    if ours is None:
        return ""
    differing = [impl for impl, fp in fingerprints[1:] if fp is not None and not workloads.agree(ours, fp)]
    return "DIFF " + ",".join(differing) if differing else "ok"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tf-python", default=None, help="a Python interpreter with tensorflow installed")
    ap.add_argument("--compare", choices=["jax"], default=None,
                    help="also run the JAX versions of the workloads (bench/jax_workloads.py)")
    ap.add_argument("--jax-python", default=None,
                    help="a Python interpreter with jax installed (default: $JAX_PYTHON or ~/venv-jax/bin/python)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="run every framework's worker this many times, interleaved; report the best time")
    ap.add_argument("-k", default=None, help="only workloads whose name or group contains this text")
    args = ap.parse_args()
    names = [n for n, (g, _) in workloads.WORKLOADS.items() if not args.k or args.k in n or args.k in g]
    jax_python = None
    if args.compare == "jax":
        jax_python = args.jax_python or default_jax_python()
        if jax_python is None:
            ap.error("--compare jax needs --jax-python PATH (an interpreter with jax) or $JAX_PYTHON")
    impls = [("tensorflux", sys.executable)]
    if args.tf_python:
        impls.append(("tensorflow", args.tf_python))
    if jax_python:
        impls.append(("jax", jax_python))
    print(f"BLAS: {blas_info(sys.executable)}")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start "
          "(shared with other processes: timings vary with the load)")
    rounds = {impl: [] for impl, _ in impls}
    for _ in range(args.rounds):
        for impl, python in impls:
            rounds[impl].append(run_impl(python, impl, names))
    results = {impl: best_of(r) for impl, r in rounds.items()}
    header = f"{'workload':<48}" + "".join(f" {impl:>12}" for impl, _ in impls)
    header += "".join(f" {'tfx/' + short:>8}" for impl, short in (("tensorflow", "tf"), ("jax", "jax"))
                      if impl in results)
    header += "  check"
    print(header)
    print("-" * len(header))
    errors = []
    for n in names:
        row = f"{n:<48}"
        for impl, _ in impls:
            value = results[impl].get(n, ("-",))[0]
            if value.startswith("ERROR"):
                errors.append(f"{impl} / {n}: {value}")
                value = "ERROR"
            row += f" {fmt(value):>12}"
        ours = results["tensorflux"].get(n, ("-", None))
        for impl in ("tensorflow", "jax"):
            if impl in results:
                row += f" {ratio(ours[0], results[impl].get(n, ('-',))[0]):>8}"
        fingerprints = [ours[1]] + [(impl, results[impl].get(n, ("-", None))[1])
                                    for impl, _ in impls[1:]]
        row += "  " + check(fingerprints)
        print(row)
    for line in errors:
        print(line)
    if "jax" in results:
        print_targets(results["tensorflux"], results["jax"])


if __name__ == "__main__":
    main()
