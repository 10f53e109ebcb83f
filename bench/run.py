"""tensorflux benchmark suite: prints a table of tensorflux timings and, given `--tf-python PATH`,
TensorFlow's timings for the same workloads measured in the same run, with the ratio.

    python bench/run.py                                  # tensorflux only
    python bench/run.py --tf-python ~/venv-tf/bin/python # side by side with TensorFlow
    python bench/run.py -k eager                         # workloads whose name or group contains "eager"

OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE slow NumPy's BLAS on this machine; the benchmark unsets both for
its own child processes only (never in tests or CI) and prints the BLAS in use.
"""
import argparse
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
    proc = subprocess.run([python, os.path.join(HERE, "worker.py"), impl, *names], env=_env(),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    results = {}
    for line in proc.stdout.splitlines():
        name, _, value = line.partition("\t")
        results[name] = value
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-1:] or ["?"]
        for n in names:
            results.setdefault(n, f"ERROR {tail[0][:80]}")
    return results


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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tf-python", default=None, help="a Python interpreter with tensorflow installed")
    ap.add_argument("-k", default=None, help="only workloads whose name or group contains this text")
    args = ap.parse_args()
    names = [n for n, (g, _) in workloads.WORKLOADS.items() if not args.k or args.k in n or args.k in g]
    print(f"BLAS: {blas_info(sys.executable)}")
    ours = run_impl(sys.executable, "tensorflux", names)
    theirs = run_impl(args.tf_python, "tensorflow", names) if args.tf_python else {}
    header = f"{'workload':<44} {'tensorflux':>14}"
    if theirs:
        header += f" {'tensorflow':>14} {'ratio':>8}"
    print(header)
    print("-" * len(header))
    for n in names:
        row = f"{n:<44} {fmt(ours.get(n, '-')):>14}"
        if theirs:
            row += f" {fmt(theirs.get(n, '-')):>14}"
            try:
                row += f" {float(ours[n]) / float(theirs[n]):>8.3f}"
            except (KeyError, ValueError, ZeroDivisionError):
                row += f" {'-':>8}"
        print(row)


if __name__ == "__main__":
    main()
