"""Cost against work: tables showing how tensorflux's costs grow with the size of the job, beside TensorFlow
2.21 (and JAX where it has the same operation), measured in one run.

    python bench/scaling.py                                   # tensorflux only
    python bench/scaling.py --tf-python ~/venv-tf/bin/python  # and TensorFlow, side by side
    python bench/scaling.py --tf-python ~/venv-tf/bin/python --compare jax   # and JAX (~/venv-jax)
    python bench/scaling.py -k trace --quick                  # one table, small sizes

Tables (each row a size; "per unit" is the time divided by the size, "growth" is tensorflux's per-unit
time relative to the first row: flat near 1.0 means linear cost, a growing column a super-linear pass):

  trace   tracing a fresh tf.function whose body is a chain of 100 / 1,000 / 10,000 elementwise ops
          (get_concrete_function; JAX: jax.make_jaxpr), then its first call; per op
  calls   one call of a tf.function holding 1 or 1,000 cached concrete functions (inputs of 1,000
          different shapes), polymorphic and straight to the ConcreteFunction; per call
  while   a traced `while i < n: x = tanh(x)` with n = 10 / 1,000 / 100,000; per iteration
  data    tf.data from_tensor_slices(float32[N, 32]).map(x * 2 + 1).batch(64).prefetch(AUTOTUNE), one
          full pass, N = 10,000 / 100,000; elements per second
  fit     Keras fit of a small MLP (32-64-64-10, adam, batch 32) on N = 1,000 / 10,000 / 50,000
          examples, one epoch after a warm-up; per example
  memory  the peak memory a call of the traced 10-op elementwise chain (bench/workloads.py's [4M] row)
          allocates beyond its input, for float32[N] with N = 1M / 4M, as a plain tf.function (generated
          NumPy code, whose elementwise regions are fused by numba when it is installed) and with
          `jit_compile=True` (numba installed), measured with tracemalloc; in multiples of the input's
          size (issue 17 item 5: at most three). tensorflux only: tracemalloc does not see TensorFlow's
          or XLA's allocators.

Every (framework, table) pair runs in its own process, frameworks interleaved table by table. Results are
checked across frameworks where they are deterministic (the chain's value, the loop's value, the data
pass's sum); a disagreement is printed under the table.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

SIZES = {  # (full, --quick)
    "trace": ([100, 1000, 10000], [100, 1000]),
    "calls": ([1, 1000], [1, 100]),
    "while": ([10, 1000, 100000], [10, 1000]),
    "data": ([10000, 100000], [2000, 10000]),
    "fit": ([1000, 10000, 50000], [500, 2000]),
    "memory": ([1 << 20, 4 << 20], [1 << 20]),
}
TITLES = {
    "trace": "trace time of a fresh tf.function against its size (a chain of elementwise ops)",
    "calls": "call overhead against the number of cached concrete functions",
    "while": "traced While loop time against its iteration count",
    "data": "tf.data map+batch+prefetch throughput against the data set's size",
    "fit": "Keras fit of a small MLP, one epoch, against the number of examples",
    "memory": "peak memory of a call of the 10-op chain beyond its input (tracemalloc), against its size",
}
UNITS = {"trace": "op", "calls": "call", "while": "iteration", "data": "element", "fit": "example",
         "memory": "byte"}

# -- measurements, run in the worker process under `lib` (tensorflux, tensorflow or jax) ---------------


def _best(fn, repeat):
    """Best seconds of `repeat` runs of fn() (the machine is shared: the minimum is the least disturbed)."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def _best_per_call(fn, number, repeat=5):
    """Best mean seconds per call over `repeat` runs of `number` calls."""
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - t0) / number)
    return min(samples)


def _chain_fn(n):
    def chain(x):
        for _ in range(n // 2):
            x = x * 1.0001
            x = x + 0.0001
        return x
    return chain


def trace(lib, impl, sizes):
    import numpy as np
    rows = []
    x_np = np.ones(8, dtype=np.float32)
    for n in sizes:
        repeat = 5 if n <= 1000 else 2
        if impl == "jax":
            x = lib.numpy.asarray(x_np)
            seconds = _best(lambda: lib.make_jaxpr(_chain_fn(n))(x), repeat)
            first = None
            value = lib.jit(_chain_fn(n))(x)
        else:
            x = lib.constant(x_np)
            fresh = []
            seconds = _best(lambda: fresh.append(lib.function(_chain_fn(n)).get_concrete_function(x)), repeat)
            concrete = fresh[-1]
            t0 = time.perf_counter()
            value = concrete(x)
            first = time.perf_counter() - t0
        rows.append({"n": n, "seconds": seconds, "first_call": first, "value": float(np.asarray(value)[0])})
    return rows


def calls(lib, impl, sizes):
    import numpy as np
    if impl == "jax":
        return []   # jax.jit's cache holds compiled executables (one XLA compile per shape): not comparable
    rows = []
    for count in sizes:
        traces = []

        def double(x):
            traces.append(1)
            return x * 2.0
        f = lib.function(double)
        if hasattr(f, "experimental_cache_size"):
            # tensorflux keeps 128 concrete functions per tf.function by default (least recently used
            # evicted); TensorFlow keeps every one. Measure the same thing: all `count` of them cached.
            f.experimental_cache_size = max(count, f.experimental_cache_size)
        inputs = [lib.constant(np.ones(k + 1, dtype=np.float32)) for k in range(count)]
        concretes = [f.get_concrete_function(x) for x in inputs]
        x, concrete = inputs[count // 2], concretes[count // 2]
        traced = len(traces)
        f(x)
        concrete(x)
        poly = _best_per_call(lambda: f(x), 3000)
        direct = _best_per_call(lambda: concrete(x), 3000)
        rows.append({"n": count, "seconds": poly, "concrete": direct, "retraces": len(traces) - traced})
    return rows


def while_loop(lib, impl, sizes):
    import numpy as np
    x_np = np.full(5, 0.5, dtype=np.float32)
    if impl == "jax":
        jnp = lib.numpy

        @lib.jit
        def f(x, n):
            return lib.lax.while_loop(lambda s: s[1] < n, lambda s: (jnp.tanh(s[0]), s[1] + 1),
                                      (x, jnp.int32(0)))[0]
        x = jnp.asarray(x_np)
        run = lambda n: lib.block_until_ready(f(x, jnp.int32(n)))  # noqa: E731
    else:
        @lib.function
        def f(x, n):
            i = lib.constant(0)
            while i < n:
                x = lib.tanh(x)
                i += 1
            return x
        x = lib.constant(x_np)
        run = lambda n: f(x, lib.constant(n))  # noqa: E731
    run(10)
    rows = []
    for n in sizes:
        repeat = 5 if n <= 1000 else 2
        seconds = _best(lambda: run(n), repeat)
        rows.append({"n": n, "seconds": seconds, "value": float(np.asarray(run(n))[0])})
    return rows


def data(lib, impl, sizes):
    import numpy as np
    if impl == "jax":
        return []   # JAX has no input pipeline of its own
    rows = []
    for n in sizes:
        features = np.random.default_rng(0).random((n, 32), dtype=np.float32)

        def one_pass():
            ds = (lib.data.Dataset.from_tensor_slices(features).map(lambda x: x * 2.0 + 1.0)
                  .batch(64).prefetch(lib.data.AUTOTUNE))
            total = 0.0
            for batch in ds:
                total += float(np.asarray(batch).sum(dtype=np.float64))
            return total
        one_pass()   # warm-up: the map function's trace and the pipeline's threads
        totals = []
        seconds = _best(lambda: totals.append(one_pass()), 3)
        rows.append({"n": n, "seconds": seconds, "value": totals[-1]})
    return rows


def fit(lib, impl, sizes):
    import numpy as np
    if impl == "jax":
        return []
    rows = []
    batch = 32
    for n in sizes:
        rng = np.random.default_rng(0)
        x = rng.random((n, 32), dtype=np.float32)
        y = np.eye(10, dtype=np.float32)[(x[:, :10].argmax(axis=1))]
        layers = lib.keras.layers
        model = lib.keras.Sequential([lib.keras.Input(shape=(32,)), layers.Dense(64, activation="relu"),
                                      layers.Dense(64, activation="relu"), layers.Dense(10, activation="softmax")])
        model.compile(optimizer="adam", loss="categorical_crossentropy")
        warm = 3 * batch + n % batch   # full batches and the last partial batch's shape
        model.fit(x[:warm], y[:warm], batch_size=batch, epochs=1, verbose=0, shuffle=False)
        t0 = time.perf_counter()
        history = model.fit(x, y, batch_size=batch, epochs=1, verbose=0)
        rows.append({"n": n, "seconds": time.perf_counter() - t0, "loss": float(history.history["loss"][-1])})
    return rows


def _peak_beyond(fn, x):
    """Bytes allocated at the peak of one fn(x) call beyond what was live before it (tracemalloc)."""
    import tracemalloc
    for _ in range(3):   # warm: the trace, the first (interpreted) call and code generation are not a call's
        fn(x)            # memory (the call that generates the code imports and runs numba's compiler)
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before, _ = tracemalloc.get_traced_memory()
        out = fn(x)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del out
    return peak - before


def memory(lib, impl, sizes):
    import numpy as np
    if impl != "tensorflux":
        return []   # tracemalloc sees Python's allocators only: TensorFlow's and XLA's buffers are not in it
    import importlib.util

    from workloads import ten_op_chain as _ten_op_chain
    compiled_too = importlib.util.find_spec("numba") is not None
    rows = []
    for n in sizes:
        x = lib.constant(np.random.default_rng(0).random(n, dtype=np.float32))
        numpy_path = lib.function(lambda x: _ten_op_chain(x, lib))
        row = {"n": n, "input": x.numpy().nbytes, "numpy_path": _peak_beyond(numpy_path, x), "compiled": None}
        if compiled_too:
            compiled = lib.function(lambda x: _ten_op_chain(x, lib), jit_compile=True)
            row["compiled"] = _peak_beyond(compiled, x)
            row["same"] = bool(np.array_equal(numpy_path(x).numpy(), compiled(x).numpy()))
        rows.append(row)
    return rows


def print_memory(results):
    rows = results.get("tensorflux")
    print(f"\n## memory: {TITLES['memory']}")
    if not isinstance(rows, list):
        print(f"tensorflux: ERROR {rows}")
        return
    header = (f"{'n':>9} {'input':>10} {'tf.function':>12} {'x input':>8} {'jit_compile':>12} {'x input':>8} "
              f"{'bar':>5} {'met':>4}")
    print(header)
    print("-" * len(header))
    for row in rows:
        size = row["input"]
        peaks = [row["numpy_path"]] + ([row["compiled"]] if row["compiled"] is not None else [])
        cells = [f"{row['n']:>9}", f"{size / 2**20:>7.1f} MB"]
        for peak in (row["numpy_path"], row["compiled"]):
            cells += ([f"{peak / 2**20:>9.1f} MB", f"{peak / size:>8.2f}"] if peak is not None
                      else [f"{'-':>12}", f"{'-':>8}"])
        met = all(peak <= 3 * size for peak in peaks)
        cells += [f"{'3':>5}", f"{'yes' if met else 'no':>4}"]
        print(" ".join(cells))
        if row.get("same") is False:
            print(f"DIFF n={row['n']}: the compiled chain's values differ from the NumPy path's")


TABLES = {"trace": trace, "calls": calls, "while": while_loop, "data": data, "fit": fit, "memory": memory}


def worker(impl, table, quick):
    import importlib
    if impl == "tensorflow":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    lib = importlib.import_module(impl)
    if impl == "jax":
        importlib.import_module("jax.numpy")
    sizes = SIZES[table][1 if quick else 0]
    return TABLES[table](lib, impl, sizes)


# -- the parent ------------------------------------------------------------------------------------------


def run_worker(python, impl, table, quick, timeout):
    from run import _env
    cmd = [python, os.path.abspath(__file__), "--worker", impl, table] + (["--quick"] if quick else [])
    try:
        proc = subprocess.run(cmd, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"timed out after {timeout} s"
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        return (proc.stderr.strip().splitlines()[-1:] or ["?"])[0][:120]
    return json.loads(lines[-1])


def _time(seconds):
    if seconds is None:
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.2f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def _per_unit(table, row):
    if table == "data":
        return f"{row['n'] / row['seconds']:,.0f}/s"
    return _time(row["seconds"] / row["n"]) if table != "calls" else _time(row["seconds"])


def print_table(table, results):
    impls = [impl for impl in results if isinstance(results[impl], list) and results[impl]]
    unit = "elements/s" if table == "data" else f"per {UNITS[table]}"
    print(f"\n## {table}: {TITLES[table]}")
    columns = [f"{'n':>8}"]
    for impl in impls:
        columns += [f"{impl + ' total':>18}", f"{unit:>14}"]
        if table == "trace" and impl != "jax":
            columns.append(f"{'first call':>12}")
        if table == "calls":
            columns.append(f"{'concrete call':>14}")
        if table == "fit":
            columns.append(f"{'loss':>7}")
    columns.append(f"{'growth':>7}")
    for impl in impls[1:]:
        columns.append(f"{'tfx/' + ('tf' if impl == 'tensorflow' else impl):>8}")
    header = " ".join(columns)
    print(header)
    print("-" * len(header))
    ours = results.get("tensorflux") if "tensorflux" in impls else None
    base = None
    for i, n in enumerate(SIZES_USED[table]):
        cells = [f"{n:>8}"]
        for impl in impls:
            row = next((r for r in results[impl] if r["n"] == n), None)
            if row is None:
                cells += [f"{'-':>18}", f"{'-':>14}"]
                continue
            cells += [f"{_time(row['seconds']):>18}", f"{_per_unit(table, row):>14}"]
            if table == "trace" and impl != "jax":
                cells.append(f"{_time(row['first_call']):>12}")
            if table == "calls":
                cells.append(f"{_time(row['concrete']):>14}")
            if table == "fit":
                cells.append(f"{row['loss']:>7.3f}")
        growth = "-"
        if ours:
            per = ours[i]["seconds"] / (1 if table == "calls" else ours[i]["n"])
            base = per if base is None else base
            growth = f"{per / base:.2f}"
            if table == "data":   # throughput: growth of the time per element as well
                growth = f"{per / base:.2f}"
        cells.append(f"{growth:>7}")
        for impl in impls[1:]:
            theirs = results[impl][i] if i < len(results[impl]) else None
            cells.append(f"{ours[i]['seconds'] / theirs['seconds']:>8.3f}" if ours and theirs else f"{'-':>8}")
        print(" ".join(cells))
    for impl, result in results.items():
        for row in result if isinstance(result, list) else []:
            if row.get("retraces"):
                print(f"NOTE {impl} n={row['n']}: {row['retraces']} retrace(s) during the measured calls")
        if isinstance(result, str):
            print(f"{impl}: ERROR {result}")
    if ours:
        for impl in impls[1:]:
            for a, b in zip(ours, results[impl]):
                if "value" in a and "value" in b and abs(a["value"] - b["value"]) > 1e-4 * max(1.0, abs(b["value"])):
                    print(f"DIFF n={a['n']}: tensorflux {a['value']!r} vs {impl} {b['value']!r}")


SIZES_USED = {}


def main(argv=None):
    from run import default_jax_python
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tf-python", default=None, help="a Python interpreter with tensorflow installed")
    ap.add_argument("--compare", choices=["jax"], default=None, help="also JAX, where it has the operation")
    ap.add_argument("--jax-python", default=None, help="an interpreter with jax (default: $JAX_PYTHON or "
                                                       "~/venv-jax/bin/python)")
    ap.add_argument("-k", default=None, help="only tables whose name contains this text (or one of several, "
                                             "comma-separated: -k trace,while)")
    ap.add_argument("--quick", action="store_true", help="small sizes")
    ap.add_argument("--timeout", type=float, default=1800)
    ap.add_argument("--json", action="store_true", help="print the raw results as one JSON line too")
    ap.add_argument("--worker", nargs=2, metavar=("IMPL", "TABLE"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker[0], args.worker[1], args.quick)), flush=True)
        return 0
    impls = [("tensorflux", sys.executable)]
    if args.tf_python:
        impls.append(("tensorflow", args.tf_python))
    if args.compare == "jax":
        jax_python = args.jax_python or default_jax_python()
        if jax_python is None:
            ap.error("--compare jax needs --jax-python PATH (an interpreter with jax) or $JAX_PYTHON")
        impls.append(("jax", jax_python))
    tables = [t for t in TABLES if not args.k or any(part and part in t for part in args.k.split(","))]
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start "
          "(shared with other processes: timings vary with the load)")
    everything = {}
    for table in tables:
        SIZES_USED[table] = SIZES[table][1 if args.quick else 0]
        everything[table] = {impl: run_worker(python, impl, table, args.quick, args.timeout)
                             for impl, python in impls if table != "memory" or impl == "tensorflux"}
        if table == "memory":
            print_memory(everything[table])
        else:
            print_table(table, everything[table])
        sys.stdout.flush()
    if args.json:
        print(json.dumps(everything))
    failed = any(isinstance(r, str) for t in everything.values() for r in t.values())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
