"""Saving and loading a 100 MB model (25M float32 parameters): tensorflux against TensorFlow 2.21.

    python bench/save_load.py                                   # tensorflux only
    python bench/save_load.py --tf-python ~/venv-tf/bin/python  # and TensorFlow, in its own interpreter
    python bench/save_load.py --durable ...                     # tensorflux's saves fsynced (opt-in mode)

Each operation runs in a fresh process (so peak memory is its own): a checkpoint write
(`tf.train.Checkpoint.write`), a checkpoint restore into existing variables (`read`), a SavedModel save
and a SavedModel load, and the same weights as a Keras Sequential of five Dense layers: `model.save`
and `keras.models.load_model` of a `.keras` file, `save_weights`/`load_weights` of a `.weights.h5`
file. The two libraries take turns operation by operation. Time is the median of `--repeat` runs of the
operation in that process, as wall time and as CPU time (`time.process_time`: every thread of the
process, so TensorFlow's thread pools count; it is what a loaded shared machine disturbs least). The
first run, which pays for lazy imports, is shown too; a load's time includes one call of the loaded
model. Memory is the growth of the process's peak resident set during
the first run, in copies of the weights (the model's own variables are created before the measurement
starts, except for a SavedModel or `.keras` load, which creates them and is measured when the load
returns, before the call: a first call's compiled kernels are no copy of the weights). The issue's bar: no slower than TensorFlow, and at most two copies of the weights.

Saves are atomic in both libraries' default modes and neither syncs to disk (TensorFlow never does);
`--durable` runs tensorflux with TENSORFLUX_DURABLE_SAVES=1 (each saved file and its directory fsynced),
the price of surviving a power cut. The machine's load falls on the wall times: compare the two columns
of one run, and read the load average printed at the end.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PARAMETERS = 25_000_000
LAYERS = 5          # five variables of 5M float32 each (a deep MLP's worth of weight matrices)

# The same script runs under both interpreters: `import_line` picks the library.
_SCRIPT = r"""
import json, os, resource, statistics, sys, time
import numpy as np
{import_line}

op, directory, repeat, parameters, layers = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
size = parameters // layers
side = int(round(size ** 0.5))


def peak():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


class Model(tf.Module):
    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(0)
        self.layers = [tf.Variable(rng.standard_normal((side, side), dtype=np.float32)) for _ in range(layers)]

    @tf.function(input_signature=[tf.TensorSpec([1, side], tf.float32)])
    def __call__(self, x):
        for w in self.layers:
            x = tf.tanh(tf.matmul(x, w) * 0.01)
        return x


def keras_model():
    rng = np.random.default_rng(0)
    model = tf.keras.Sequential([tf.keras.Input((side,))] + [tf.keras.layers.Dense(side, activation="tanh")
                                                               for _ in range(layers)])
    model.set_weights([rng.standard_normal(w.shape, dtype=np.float32) * 0.01 for w in model.weights])
    return model


prefix = os.path.join(directory, "ckpt")
export = os.path.join(directory, "saved_model")
keras_file = os.path.join(directory, "model.keras")
weights_file = os.path.join(directory, "model.weights.h5")
times, cpu, growth = [], [], None
if op in ("keras_save", "keras_load", "h5_save", "h5_load"):
    if op != "keras_load":   # the loads read what the saves before them wrote (in their own processes)
        model = keras_model()
        model(np.ones((1, side), np.float32))
    before = peak()
    for i in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        if op == "keras_save":
            model.save(keras_file)
        elif op == "keras_load":
            loaded = tf.keras.models.load_model(keras_file)
            if i == 0:
                growth = peak() - before
            loaded(np.ones((1, side), np.float32))
        elif op == "h5_save":
            model.save_weights(weights_file)
        else:
            model.load_weights(weights_file)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        if i == 0 and op != "keras_load":
            growth = peak() - before
        if op == "keras_load":
            del loaded
elif op == "load":
    before = peak()
    for i in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        loaded = tf.saved_model.load(export)
        if i == 0:
            growth = peak() - before
        loaded(tf.ones([1, side]))
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        del loaded
else:
    model = Model()
    model(tf.ones([1, side]))
    checkpoint = tf.train.Checkpoint(model=model)
    if op == "read":
        checkpoint.write(prefix)
    before = peak()
    for i in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        if op == "write":
            checkpoint.write(prefix)
        elif op == "read":
            checkpoint.read(prefix).assert_consumed()
        elif op == "save":
            tf.saved_model.save(model, export)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        if i == 0:
            growth = peak() - before
print(json.dumps({{"seconds": statistics.median(times), "first": times[0], "growth": growth,
                  "cpu": statistics.median(cpu),
                  "weights": side * side * layers * 4}}))
"""

IMPORTS = {"tensorflux": "import tensorflux as tf", "tensorflow": "import tensorflow as tf"}
OPERATIONS = [("write", "checkpoint write"), ("read", "checkpoint read"), ("save", "SavedModel save"),
              ("load", "SavedModel load"), ("keras_save", ".keras save"), ("keras_load", ".keras load"),
              ("h5_save", ".weights.h5 save"), ("h5_load", ".weights.h5 load")]


def _env(library, durable=False):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    env.pop("TENSORFLUX_DURABLE_SAVES", None)
    if durable and library == "tensorflux":
        env["TENSORFLUX_DURABLE_SAVES"] = "1"
    env.pop("OPENBLAS_CORETYPE", None)
    env.pop("OPENBLAS_L2_SIZE", None)
    if library == "tensorflux":
        env["PYTHONPATH"] = os.path.dirname(HERE) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _run(python, library, op, directory, repeat, durable=False):
    script = _SCRIPT.format(import_line=IMPORTS[library])
    done = subprocess.run([python, "-c", script, op, directory, str(repeat), str(PARAMETERS), str(LAYERS)],
                          capture_output=True, text=True, env=_env(library, durable), timeout=1800)
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["?"])[-1][:100]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure(interpreters, repeat, durable=False):
    # Each load reads the file the operation before it saved (OPERATIONS keeps that order).
    """{library: {operation: {"seconds", "first", "growth", "weights"}}}. The libraries take turns
    operation by operation (the first to go alternates), so a change in the shared machine's load
    falls on both sides alike."""
    directories = {library: tempfile.mkdtemp(prefix=f"save_load_{library}_") for library in interpreters}
    results = {library: {} for library in interpreters}
    try:
        for number, (op, _) in enumerate(OPERATIONS):
            order = list(interpreters) if number % 2 == 0 else list(reversed(interpreters))
            for library in order:
                results[library][op] = _run(interpreters[library], library, op, directories[library], repeat,
                                            durable)
    finally:
        for directory in directories.values():
            shutil.rmtree(directory, ignore_errors=True)
    return results


def _cell(result):
    if "error" in result:
        return f"ERROR {result['error']}"
    return (f"{result['seconds']:6.3f} s ({result['first']:6.3f}) {result['cpu']:6.3f} s "
            f"{result['growth'] / result['weights']:4.2f}x")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tf-python", help="an interpreter with TensorFlow 2.21 installed")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print the raw results as JSON too")
    parser.add_argument("--durable", action="store_true",
                        help="tensorflux's saves fsync their files (TENSORFLUX_DURABLE_SAVES=1)")
    args = parser.parse_args(argv)
    interpreters = {"tensorflux": sys.executable}
    if args.tf_python:
        interpreters["tensorflow"] = args.tf_python
    results = measure(interpreters, args.repeat, args.durable)
    ours, theirs = results["tensorflux"], results.get("tensorflow")
    print(f"{PARAMETERS / 1e6:.0f}M float32 parameters ({PARAMETERS * 4 / 1e6:.0f} MB) in {LAYERS} variables; "
          f"each cell: median wall time of {args.repeat} runs (first run in parentheses), median CPU time "
          f"(all threads), memory = peak RSS growth in copies of the weights"
          f"{'; tensorflux saves fsynced' if args.durable else ''}")
    header = f"{'operation':<18} {'tensorflux':>34}"
    if theirs is not None:
        header += f" {'TensorFlow 2.21':>34} {'wall ratio':>10} {'CPU ratio':>9}"
    print(header)
    for op, label in OPERATIONS:
        line = f"{label:<18} {_cell(ours[op]):>34}"
        if theirs is not None:
            line += f" {_cell(theirs[op]):>34}"
            if "error" not in ours[op] and "error" not in theirs[op]:
                line += (f" {ours[op]['seconds'] / theirs[op]['seconds']:9.2f}x"
                         f" {ours[op]['cpu'] / theirs[op]['cpu']:8.2f}x")
        print(line)
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.json:
        print(json.dumps({"tensorflux": ours, "tensorflow": theirs}))


if __name__ == "__main__":
    main()
