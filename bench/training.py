"""Training throughput on the Keras examples' models: one `fit` epoch, tensorflux against TensorFlow 2.21.

    python bench/training.py                                   # tensorflux only
    python bench/training.py --tf-python ~/venv-tf/bin/python  # and TensorFlow, side by side
    python bench/training.py -k convnet --quick                # one model, small sizes (a quick look)
    python bench/training.py -k convnet --epochs 5 --ops       # best of 5, and tensorflux's time per op type

Models (the shapes of the keras-io examples, on synthetic data of their sizes, with a learnable signal
so the loss has something to decrease):

  mnist_convnet  examples/vision/mnist_convnet.py: 2x (Conv2D 3x3 relu + MaxPool 2x2), Flatten, Dropout,
                 Dense softmax; 6000 images 28x28x1, batch 128, adam, categorical crossentropy
  addition_rnn   examples/nlp/addition_rnn.py: LSTM(128) encoder, RepeatVector, LSTM(128,
                 return_sequences) decoder, Dense softmax per step; 5000 sequences, batch 32
  transformer    examples/nlp/text_classification_with_transformer.py: token+position Embedding
                 (20000x32, 200 positions), MultiHeadAttention (2 heads, key_dim 32), LayerNorm, FFN 32,
                 GlobalAveragePooling1D, Dense; 2000 sequences of 200 tokens, batch 32
  mlp            Dense 784-128-128-10 on 6000 flattened images, batch 128
  mlp_60k        the same on 60,000 images, MNIST's training set size

Every (framework, model) pair runs in its own fresh process, which builds and compiles the model,
evaluates the loss once before training and runs a warm-up `fit` of a few batches (it traces the train
step for both the full and the final partial batch shape, so the timed epochs pay no tracing). Then the
two processes of a model take turns: ONE `fit` epoch over the whole data set in one, then one in the
other, --epochs rounds (who goes first alternates), only one process working at a time. Each side's
figure is its best epoch (the least disturbed by other processes on a shared machine: both sides get
the same chances, since their epochs alternate), its median is printed too. The work of a timed epoch
is the same as ever: one pass over the data set, same model, batch and data.
Printed: seconds per epoch (best and median), the CPU seconds of the best epoch (all threads: on a
shared machine the work done, which the load changes less than the wall time), examples/s, the ratio
tensorflux/TensorFlow of the best wall times (below 1 means tensorflux is faster), the ratio of those
epochs' CPU seconds (under a heavy load the wall ratio says mostly which process the scheduler gave
more of the cores: it shares them out by runnable thread, and TensorFlow runs more), and the loss before
training and after the first timed epoch in both frameworks (the two must fall alike; weights start
from different random draws, so the values agree only roughly).
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
WARMUP_BATCHES = 3

# Sizes: (full, --quick). The quick sizes keep every shape of the model and shrink only the data.
SIZES = {
    "mnist_convnet": {"n": (6000, 384), "batch": 128},
    "addition_rnn": {"n": (5000, 320), "batch": 32},
    "transformer": {"n": (2000, 128), "batch": 32},
    "mlp": {"n": (6000, 512), "batch": 128},
    "mlp_60k": {"n": (60000, 512), "batch": 128},    # the MLP on MNIST's full 60,000 (issue 15's fit bar)
}

# -- run inside the worker process (tensorflux or tensorflow imported as `tf`) -------------------------


def _mnist_data(np, n):
    """Images: noise plus a fixed random 28x28 template per class (a learnable signal); one-hot labels."""
    rng = np.random.default_rng(0)
    templates = rng.random((10, 28, 28, 1), dtype=np.float32)
    labels = rng.integers(0, 10, n)
    x = (0.5 * templates[labels] + 0.5 * rng.random((n, 28, 28, 1), dtype=np.float32)).astype(np.float32)
    y = np.eye(10, dtype=np.float32)[labels]
    return x, y


def build_mnist_convnet(tf, np, n):
    layers = tf.keras.layers
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(28, 28, 1)),
        layers.Conv2D(32, kernel_size=(3, 3), activation="relu"),
        layers.MaxPooling2D(pool_size=(2, 2)),
        layers.Conv2D(64, kernel_size=(3, 3), activation="relu"),
        layers.MaxPooling2D(pool_size=(2, 2)),
        layers.Flatten(),
        layers.Dropout(0.5),
        layers.Dense(10, activation="softmax"),
    ])
    model.compile(loss="categorical_crossentropy", optimizer="adam")
    return model, _mnist_data(np, n)


def build_mlp(tf, np, n):
    layers = tf.keras.layers
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(784,)),
        layers.Dense(128, activation="relu"),
        layers.Dense(128, activation="relu"),
        layers.Dense(10, activation="softmax"),
    ])
    model.compile(loss="categorical_crossentropy", optimizer="adam")
    x, y = _mnist_data(np, n)
    return model, (x.reshape(n, 784), y)


def _addition_data(np, n, digits=3):
    """Real addition problems "a+b" (right-padded to 7 characters, reversed as in the example) and their
    sums (padded to 4), one-hot over the 12 characters '0123456789+ '."""
    chars = "0123456789+ "
    index = {c: i for i, c in enumerate(chars)}
    rng = np.random.default_rng(0)
    maxlen = digits + 1 + digits
    a = rng.integers(0, 10 ** digits, n)
    b = rng.integers(0, 10 ** digits, n)
    x = np.zeros((n, maxlen, len(chars)), dtype=np.float32)
    y = np.zeros((n, digits + 1, len(chars)), dtype=np.float32)
    for i in range(n):
        query = f"{a[i]}+{b[i]}".ljust(maxlen)[::-1]
        answer = str(a[i] + b[i]).ljust(digits + 1)
        x[i, np.arange(maxlen), [index[c] for c in query]] = 1.0
        y[i, np.arange(digits + 1), [index[c] for c in answer]] = 1.0
    return x, y


def build_addition_rnn(tf, np, n):
    layers = tf.keras.layers
    x, y = _addition_data(np, n)
    model = tf.keras.Sequential([
        tf.keras.Input(shape=x.shape[1:]),
        layers.LSTM(128),
        layers.RepeatVector(y.shape[1]),
        layers.LSTM(128, return_sequences=True),
        layers.TimeDistributed(layers.Dense(y.shape[2], activation="softmax")),
    ])
    model.compile(loss="categorical_crossentropy", optimizer="adam")
    return model, (x, y)


def build_transformer(tf, np, n, vocab=20000, maxlen=200, embed_dim=32, num_heads=2, ff_dim=32):
    layers = tf.keras.layers

    class TransformerBlock(layers.Layer):
        def __init__(self, rate=0.1):
            super().__init__()
            self.att = layers.MultiHeadAttention(num_heads=num_heads, key_dim=embed_dim)
            self.ffn = tf.keras.Sequential([layers.Dense(ff_dim, activation="relu"), layers.Dense(embed_dim)])
            self.layernorm1 = layers.LayerNormalization(epsilon=1e-6)
            self.layernorm2 = layers.LayerNormalization(epsilon=1e-6)
            self.dropout1 = layers.Dropout(rate)
            self.dropout2 = layers.Dropout(rate)

        def call(self, inputs):
            attention = self.dropout1(self.att(inputs, inputs))
            out1 = self.layernorm1(inputs + attention)
            return self.layernorm2(out1 + self.dropout2(self.ffn(out1)))

    class TokenAndPositionEmbedding(layers.Layer):
        def __init__(self):
            super().__init__()
            self.token_emb = layers.Embedding(input_dim=vocab, output_dim=embed_dim)
            self.pos_emb = layers.Embedding(input_dim=maxlen, output_dim=embed_dim)

        def call(self, x):
            positions = self.pos_emb(tf.range(maxlen))
            return self.token_emb(x) + positions

    inputs = layers.Input(shape=(maxlen,))
    h = TokenAndPositionEmbedding()(inputs)
    h = TransformerBlock()(h)
    h = layers.GlobalAveragePooling1D()(h)
    h = layers.Dropout(0.1)(h)
    h = layers.Dense(20, activation="relu")(h)
    h = layers.Dropout(0.1)(h)
    outputs = layers.Dense(2, activation="softmax")(h)
    model = tf.keras.Model(inputs=inputs, outputs=outputs)
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    # Label: whether the sequence holds more tokens from the lower half of the vocabulary (learnable
    # through the embeddings and the average pooling).
    rng = np.random.default_rng(0)
    x = rng.integers(0, vocab, (n, maxlen)).astype(np.int32)
    bias = rng.integers(0, 2, n)
    low = rng.random((n, maxlen)) < np.where(bias == 1, 0.6, 0.4)[:, None]
    x = np.where(low, x % (vocab // 2), vocab // 2 + x % (vocab // 2)).astype(np.int32)
    y = bias.astype(np.int32)
    return model, (x, y)


BUILDERS = {"mnist_convnet": build_mnist_convnet, "addition_rnn": build_addition_rnn,
            "transformer": build_transformer, "mlp": build_mlp, "mlp_60k": build_mlp}


def _time_kernels():
    """tensorflux only (--ops): every op kernel, those registered later included, adds its calls, wall and
    CPU seconds (all threads) into the returned {op type: [calls, wall, cpu]} table."""
    import time

    from tensorflux._src.ops import registry
    table = {}

    def wrap(op):
        kernel = op.kernel

        def timed(*args, **attrs):
            start, cpu_start = time.perf_counter(), time.process_time()
            try:
                return kernel(*args, **attrs)
            finally:
                row = table.setdefault(op.name, [0, 0.0, 0.0])
                row[0] += 1
                row[1] += time.perf_counter() - start
                row[2] += time.process_time() - cpu_start
        op.kernel = timed
    for op in list(dict.values(registry.OPS)):
        wrap(op)
    init = registry.OpDef.__init__

    def init_and_wrap(self, *args, **kwargs):
        init(self, *args, **kwargs)
        wrap(self)
    registry.OpDef.__init__ = init_and_wrap
    return table


def prepare(impl, name, quick, ops=False):
    """Builds and warms up `name` under `impl`; returns (a function timing one epoch, the facts so far).
    `ops` (tensorflux): each epoch's result also holds the time of every op type's kernels in it."""
    import time
    import importlib

    import numpy as np
    if impl == "tensorflow":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    tf = importlib.import_module(impl)
    table = _time_kernels() if ops and impl == "tensorflux" else None
    tf.random.set_seed(0)
    if hasattr(tf.keras.utils, "set_random_seed"):
        tf.keras.utils.set_random_seed(0)
    size = SIZES[name]
    n, batch = size["n"][1 if quick else 0], size["batch"]
    model, (x, y) = BUILDERS[name](tf, np, n)
    loss_before = float(model.evaluate(x, y, batch_size=batch, verbose=0))
    # Warm-up: full batches and one of the final partial batch's size, so both shapes are traced.
    warm = WARMUP_BATCHES * batch + n % batch
    model.fit(x[:warm], y[:warm], batch_size=batch, epochs=1, verbose=0, shuffle=False)

    def epoch():
        if table is not None:
            table.clear()
        start, cpu_start = time.perf_counter(), time.process_time()
        history = model.fit(x, y, batch_size=batch, epochs=1, verbose=0)
        seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
        result = {"seconds": seconds, "cpu_seconds": cpu_seconds, "loss": float(history.history["loss"][-1])}
        if table is not None:
            result["ops"] = {k: list(v) for k, v in table.items()}
        return result
    return epoch, {"examples": n, "loss_before": loss_before, "steps": -(-n // batch)}


def serve(impl, name, quick, ops=False):
    """The worker: prepares, says so, then times one epoch per "epoch" line read until "quit" (or EOF),
    one JSON line out per line in."""
    epoch, facts = prepare(impl, name, quick, ops)
    print(json.dumps(facts), flush=True)
    for line in sys.stdin:
        if line.strip() != "epoch":
            break
        print(json.dumps(epoch()), flush=True)


# -- the parent: one process per (framework, model), their epochs interleaved, a table at the end ------


def _env():
    env = dict(os.environ)
    # These two variables slow NumPy's OpenBLAS on this machine; unset for the benchmark's children only.
    env.pop("OPENBLAS_CORETYPE", None)
    env.pop("OPENBLAS_L2_SIZE", None)
    root = os.path.dirname(HERE)
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    return env


class Worker:
    """One (framework, model) process; `error` is set (and the process gone) once anything went wrong."""

    def __init__(self, python, impl, name, quick, timeout, ops=False):
        import tempfile
        self.error, self.facts, self.epochs, self.timeout = None, {}, [], timeout
        cmd = [python, os.path.abspath(__file__), "--worker", impl, name] + (["--quick"] if quick else [])
        cmd += ["--ops"] if ops else []
        self._stderr = tempfile.TemporaryFile(mode="w+")      # a file: a chatty child never blocks on it
        self.proc = subprocess.Popen(cmd, env=_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self._stderr, text=True)
        self.facts = self._answer() or {}

    def _answer(self):
        """The next JSON line from the child (other printed lines skipped), or None with `error` set."""
        import selectors
        import time
        deadline = time.monotonic() + self.timeout
        with selectors.DefaultSelector() as sel:
            sel.register(self.proc.stdout, selectors.EVENT_READ)
            while True:
                if not sel.select(max(0.0, deadline - time.monotonic())):
                    self._fail(f"timed out after {self.timeout:.0f} s")
                    return None
                line = self.proc.stdout.readline()
                if not line:
                    self._stderr.seek(0)
                    tail = self._stderr.read().strip().splitlines()[-1:] or ["?"]
                    self._fail(tail[0][:100])
                    return None
                if line.startswith("{"):
                    return json.loads(line)

    def _fail(self, message):
        self.error = message
        self.proc.kill()
        self.proc.wait()

    def epoch(self):
        if self.error:
            return
        self.proc.stdin.write("epoch\n")
        self.proc.stdin.flush()
        result = self._answer()
        if result is not None:
            self.epochs.append(result)

    def close(self):
        if not self.error:
            self.proc.stdin.close()
            self.proc.wait()
        self._stderr.close()

    def result(self):
        """The row's dict: the best epoch's seconds and CPU seconds, the median, the losses."""
        if self.error:
            return {"error": self.error}
        import statistics
        best = min(self.epochs, key=lambda e: e["seconds"])
        return dict(self.facts, seconds=best["seconds"], cpu_seconds=best["cpu_seconds"],
                    median_seconds=statistics.median(e["seconds"] for e in self.epochs),
                    loss_after=self.epochs[0]["loss"], epochs=self.epochs)


def run_model(pythons, name, quick, timeout, rounds, ops=False):
    """{impl: result} for one model: its workers prepared one after the other, then `rounds` rounds of
    one epoch each, taking turns (the first to go alternates)."""
    workers = {}
    for impl, python in pythons.items():
        workers[impl] = Worker(python, impl, name, quick, timeout, ops and impl == "tensorflux")
    order = list(workers.values())
    for r in range(rounds):
        for worker in (order if r % 2 == 0 else order[::-1]):
            worker.epoch()
    for worker in order:
        worker.close()
    return {impl: worker.result() for impl, worker in workers.items()}


def _print_ops(name, result, rows=16):
    """The op types of the best epoch that took the most wall time, per training step."""
    best = min(result.get("epochs") or [{}], key=lambda e: e.get("seconds", 0))
    if "ops" not in best:
        return
    steps = result["steps"]
    wall, cpu = sum(v[1] for v in best["ops"].values()), sum(v[2] for v in best["ops"].values())
    print(f"\n{name}: tensorflux's op kernels in its best epoch, per step of {steps} ({best['seconds']:.3f} s, "
          f"{best['cpu_seconds']:.2f} CPU s; in kernels {wall:.3f} s, {cpu:.2f} CPU s)")
    print(f"{'op type':<28} {'calls':>6} {'wall ms':>8} {'cpu ms':>8} {'cpu/wall':>8}")
    for op, (calls, seconds, cpu_seconds) in sorted(best["ops"].items(), key=lambda kv: -kv[1][1])[:rows]:
        print(f"{op:<28} {calls / steps:>6.1f} {seconds / steps * 1e3:>8.2f} {cpu_seconds / steps * 1e3:>8.2f} "
              f"{cpu_seconds / seconds if seconds else 0:>8.2f}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tf-python", default=None, help="a Python interpreter with tensorflow installed")
    ap.add_argument("-k", default=None, help="only models whose name contains this text")
    ap.add_argument("--quick", action="store_true", help="small data sets (same model shapes)")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds allowed per (framework, model)")
    ap.add_argument("--epochs", type=int, default=3, help="timed epochs per side, taking turns (best kept)")
    ap.add_argument("--ops", action="store_true", help="tensorflux's time per op type in its best epoch (the "
                    "timing wrappers add a little to every op)")
    ap.add_argument("--json", action="store_true", help="print the raw results as one JSON line too")
    ap.add_argument("--worker", nargs=2, metavar=("IMPL", "MODEL"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        serve(args.worker[0], args.worker[1], args.quick, args.ops)
        return 0
    if args.epochs < 1:
        ap.error("--epochs must be at least 1")
    names = [n for n in BUILDERS if not args.k or args.k in n]
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start "
          "(shared with other processes: timings vary with the load)")
    print(f"each side: the best of {args.epochs} epochs, the two sides' epochs taking turns")
    pythons = {"tensorflux": sys.executable}
    if args.tf_python:
        pythons["tensorflow"] = args.tf_python
    results = {name: run_model(pythons, name, args.quick, args.timeout, args.epochs, args.ops) for name in names}
    impls = ["tensorflux"] + (["tensorflow"] if args.tf_python else [])
    header = f"{'model':<14} {'examples':>8}"
    for impl in impls:
        header += f" | {impl + ' s best (median)':>28} {'cpu s':>6} {'ex/s':>8} {'loss before->after':>19}"
    if args.tf_python:
        header += f" | {'ratio':>6} {'cpu ratio':>9}"
    print(header)
    print("-" * len(header))
    for name in names:
        row = results[name]
        first = row["tensorflux"]
        row_text = f"{name:<14} {first.get('examples', '-')!s:>8}"
        for impl in impls:
            r = row[impl]
            if "error" in r:
                row_text += f" | {'ERROR ' + r['error']:<64.64}"
                continue
            losses = f"{r['loss_before']:.3f}->{r['loss_after']:.3f}"
            seconds = f"{r['seconds']:.3f} ({r['median_seconds']:.3f})"
            row_text += (f" | {seconds:>28} {r['cpu_seconds']:>6.2f} "
                         f"{r['examples'] / r['seconds']:>8.0f} {losses:>19}")
        if args.tf_python:
            try:
                row_text += (f" | {row['tensorflux']['seconds'] / row['tensorflow']['seconds']:>6.2f} "
                             f"{row['tensorflux']['cpu_seconds'] / row['tensorflow']['cpu_seconds']:>9.2f}")
            except (KeyError, ZeroDivisionError):
                row_text += f" | {'-':>6} {'-':>9}"
        print(row_text)
    if args.ops:
        for name in names:
            _print_ops(name, results[name]["tensorflux"])
    if args.json:
        print(json.dumps(results))
    failed = any("error" in r for row in results.values() for r in row.values())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
