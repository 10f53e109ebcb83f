"""Training throughput on the Keras examples' models: one `fit` epoch, tensorflux against TensorFlow 2.21.

    python bench/training.py                                   # tensorflux only
    python bench/training.py --tf-python ~/venv-tf/bin/python  # and TensorFlow, side by side
    python bench/training.py -k convnet --quick                # one model, small sizes (a quick look)

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

Every (framework, model) pair runs in its own fresh process, frameworks interleaved model by model. In
that process: the model is built and compiled, the loss is evaluated once before training, a warm-up
`fit` of a few batches runs (it traces the train step for both the full and the final partial batch
shape, so the timed epoch pays no tracing), then ONE `fit` epoch over the whole data set is timed.
Printed: seconds per epoch, the CPU seconds the process used in it (all threads: on a shared machine
the work done, which the load changes less than the wall time), examples/s, the ratio
tensorflux/TensorFlow of the wall times (below 1 means tensorflux is faster) and the loss before
training and after the epoch in both frameworks (the two must fall alike; weights start from different
random draws, so the values agree only roughly).
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


def measure(impl, name, quick):
    """Builds, warms up and times one epoch of `name` under `impl`; returns a dict for the parent."""
    import time
    import importlib

    import numpy as np
    if impl == "tensorflow":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    tf = importlib.import_module(impl)
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
    start, cpu_start = time.perf_counter(), time.process_time()
    history = model.fit(x, y, batch_size=batch, epochs=1, verbose=0)
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
    return {"seconds": seconds, "cpu_seconds": cpu_seconds, "examples": n, "loss_before": loss_before,
            "loss_after": float(history.history["loss"][-1])}


# -- the parent: one process per (framework, model), a table at the end --------------------------------


def _env():
    env = dict(os.environ)
    # These two variables slow NumPy's OpenBLAS on this machine; unset for the benchmark's children only.
    env.pop("OPENBLAS_CORETYPE", None)
    env.pop("OPENBLAS_L2_SIZE", None)
    root = os.path.dirname(HERE)
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    return env


def run_one(python, impl, name, quick, timeout):
    cmd = [python, os.path.abspath(__file__), "--worker", impl, name] + (["--quick"] if quick else [])
    try:
        proc = subprocess.run(cmd, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout} s"}
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = proc.stderr.strip().splitlines()[-1:] or ["?"]
        return {"error": tail[0][:100]}
    return json.loads(lines[-1])


def _cell(result, key, form):
    return form.format(result[key]) if result and key in result else "-"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tf-python", default=None, help="a Python interpreter with tensorflow installed")
    ap.add_argument("-k", default=None, help="only models whose name contains this text")
    ap.add_argument("--quick", action="store_true", help="small data sets (same model shapes)")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds allowed per (framework, model)")
    ap.add_argument("--json", action="store_true", help="print the raw results as one JSON line too")
    ap.add_argument("--worker", nargs=2, metavar=("IMPL", "MODEL"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(measure(args.worker[0], args.worker[1], args.quick)), flush=True)
        return 0
    names = [n for n in BUILDERS if not args.k or args.k in n]
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start "
          "(shared with other processes: timings vary with the load)")
    results = {}
    for name in names:
        results[name] = {"tensorflux": run_one(sys.executable, "tensorflux", name, args.quick, args.timeout)}
        if args.tf_python:
            results[name]["tensorflow"] = run_one(args.tf_python, "tensorflow", name, args.quick, args.timeout)
    impls = ["tensorflux"] + (["tensorflow"] if args.tf_python else [])
    header = f"{'model':<14} {'examples':>8}"
    for impl in impls:
        header += f" | {impl + ' s/epoch':>20} {'cpu s':>6} {'ex/s':>8} {'loss before->after':>19}"
    if args.tf_python:
        header += f" | {'ratio':>6}"
    print(header)
    print("-" * len(header))
    for name in names:
        row = results[name]
        first = row["tensorflux"]
        row_text = f"{name:<14} {first.get('examples', '-')!s:>8}"
        for impl in impls:
            r = row[impl]
            if "error" in r:
                row_text += f" | {'ERROR ' + r['error']:<56.56}"
                continue
            losses = f"{r['loss_before']:.3f}->{r['loss_after']:.3f}"
            row_text += (f" | {r['seconds']:>20.3f} {r.get('cpu_seconds', float('nan')):>6.2f} "
                         f"{r['examples'] / r['seconds']:>8.0f} {losses:>19}")
        if args.tf_python:
            try:
                row_text += f" | {row['tensorflux']['seconds'] / row['tensorflow']['seconds']:>6.2f}"
            except (KeyError, ZeroDivisionError):
                row_text += f" | {'-':>6}"
        print(row_text)
    if args.json:
        print(json.dumps(results))
    failed = any("error" in r for row in results.values() for r in row.values())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
