"""Loads hostile and corrupted files in a memory-capped process and reports what happened, as JSON.

Run as `python hostile_worker.py WORKDIR SEED MEMORY_CAP_BYTES`. It writes a small SavedModel, a `.keras`
file and a model JSON config, then loads many mutated copies of them (crafted names that would run
`touch SENTINEL` if they ever reached Python source or an attribute lookup, bit flips, truncations,
type confusions, deep nesting, huge shapes, zip bombs). For each load it records the outcome: "ok"
(loaded, called, same result), "differs" (loaded a changed but valid model), or the exception class.
The test (test_hostile_files.py) judges the report; this process only measures.
"""
import copy
import io
import json
import os
import random
import resource
import shutil
import sys
import zipfile

import numpy as np


def main(workdir, seed, memory_cap):
    resource.setrlimit(resource.RLIMIT_AS, (memory_cap, memory_cap))
    import tensorflux as tf
    os.chdir(workdir)
    sentinel = os.path.join(workdir, "SENTINEL")
    payloads = hostile_strings(sentinel)
    rng = random.Random(seed)
    report = {"cases": [], "sentinel": False}
    runner = Runner(tf, sentinel, report)
    saved_model_cases(tf, runner, rng, payloads)
    keras_cases(tf, runner, rng, payloads)
    report["max_rss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    report["sentinel"] = os.path.exists(sentinel)
    print(json.dumps(report))


def hostile_strings(sentinel):
    """Text that runs `touch SENTINEL` (in the working directory) if it ever becomes Python source or a
    callable looked up by name; the first ones are shaped to stay valid Python where they would land."""
    command = "__import__('os').system('touch SENTINEL')"
    return [f"y=0) if {command} else print(0, y",           # an attr key inside a kernel call
            f"model.py\n    {command}#",                    # a source file name inside a comment
            command,
            f"x'); {command}; ('",
            f'x"); {command}; ("',
            f"x\n{command}\n",
            f"x\r{command}\r",
            f"x\u2028{command}",
            f"x=1, **{{}}) or {command} #",
            f"x):\n    {command}\ndef y(",
            f"{command} # \\",
            "os.system", "builtins.eval", "__builtins__", "eval", "exec", "system"]


class Runner:
    """Runs one load (and a call of what it loaded), classifying the outcome."""

    def __init__(self, tf, sentinel, report):
        self.tf, self.sentinel, self.report = tf, sentinel, report

    def run(self, family, kind, load, expected, hostile=False):
        detail = None
        try:
            result = load()
            outcome = "ok" if _same(result, expected) else "differs"
        except BaseException as e:  # noqa: B902 — every class is recorded, the test judges it
            if isinstance(e, KeyboardInterrupt):
                raise
            outcome = _error_class(self.tf, e)
            detail = f"{str(e)[:300]} @ {_last_frame(e)}"
        else:
            detail = None if outcome == "ok" else f"result {np.asarray(result).ravel()[:4]}"
        executed = os.path.exists(self.sentinel)
        if executed:
            os.remove(self.sentinel)
        self.report["cases"].append({"family": family, "kind": kind, "outcome": outcome, "executed": executed,
                                     "hostile": hostile, "detail": detail})


def _last_frame(e):
    tb = e.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return f"{os.path.basename(tb.tb_frame.f_code.co_filename)}:{tb.tb_lineno}" if tb is not None else "?"


def _error_class(tf, e):
    if isinstance(e, tf.errors.OpError):
        return f"tf.errors.{type(e).__name__}"
    for base in (ValueError, TypeError, OSError):   # report the TensorFlow-relevant class, not a private subclass
        if isinstance(e, base) and type(e).__module__ not in ("builtins",):
            return f"{base.__name__} ({type(e).__name__})"
    return type(e).__name__


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b)


# -- SavedModel -------------------------------------------------------------------------------------
X = np.arange(6, dtype=np.float32).reshape(2, 3) / 7


def make_saved_model(tf, path):
    class Net(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))
            self.b = tf.Variable(np.full(4, 0.25, np.float32))

        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
        def __call__(self, x):
            h = tf.nn.relu(tf.matmul(x, self.w) + self.b)
            h = tf.cond(tf.reduce_sum(h) > 0, lambda: h * 2.0, lambda: h - 1.0)
            return tf.reduce_sum(tf.reshape(h, [-1, 2, 2]), axis=2) * 0.5

    net = Net()
    tf.saved_model.save(net, path)
    return np.asarray(net(X))


def _load_and_call(tf, path):
    loaded = tf.saved_model.load(path)
    return np.asarray(loaded(tf.constant(X)))


def _walk(value, path=()):
    """Every (path, value) in a JSON tree, containers included."""
    yield path, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _walk(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _walk(v, path + (i,))


def _set(tree, path, value):
    node = tree
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value


def _rename_key(tree, path, new_key):
    node = tree
    for p in path[:-1]:
        node = node[p]
    value = node.pop(path[-1])
    node[new_key] = value


def _deep(depth):
    value = []
    for _ in range(depth):
        value = [value]
    return value


def _junk(rng, payloads):
    return rng.choice([rng.choice(payloads), None, -1, 2 ** 62, 1e308, [], {}, [[[]]], {"tuple": [1]},
                       {"graph": 99}, {"array": "missing"}, {"variable": 7}, {"concrete": -5},
                       {"shape": [2 ** 40, 2 ** 40]}, True, "", "x:99", _deep(40)])


def saved_model_cases(tf, runner, rng, payloads):
    base = os.path.abspath("base_sm")
    expected = make_saved_model(tf, base)
    runner.run("saved_model", "unchanged", lambda: _load_and_call(tf, base), expected)
    with open(os.path.join(base, "saved_model.json"), "rb") as f:
        raw = f.read()
    tree = json.loads(raw)

    def variant(kind, mutate_dir, hostile=False):
        target = os.path.abspath("case_sm")
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(base, target)
        mutate_dir(target)
        runner.run("saved_model", kind, lambda: _load_and_call(tf, target), expected, hostile)

    def with_json(data):
        return lambda d: _write(os.path.join(d, "saved_model.json"), data)

    def with_tree(new_tree):
        return with_json(json.dumps(new_tree).encode())

    # Crafted text in every name-like place a node, graph or function has.
    names = [p for p, v in _walk(tree) if isinstance(v, str) and p and p[-1] in ("name", "op", "opdef")]
    names += [p + (0,) for p, v in _walk(tree) if p and p[-1] == "source"]
    for path in names:
        for payload in payloads[:2] + rng.sample(payloads[2:], 2):
            t = copy.deepcopy(tree)
            _set(t, path, payload)
            variant(f"hostile {path[-1]}", with_tree(t), hostile=True)
    attr_paths = [p for p, v in _walk(tree) if p and p[-1] == "attrs" and isinstance(v, dict) and v]
    for path in attr_paths:
        for payload in payloads[:1] + rng.sample(payloads[1:], 3):
            t = copy.deepcopy(tree)
            node = t
            for p in path:
                node = node[p]
            key = rng.choice(sorted(node))
            _rename_key(t, path + (key,), payload)
            variant("hostile attr key", with_tree(t), hostile=True)
            t = copy.deepcopy(tree)
            _set(t, path + (payload,), 1)
            variant("hostile extra attr", with_tree(t), hostile=True)
    objects = [p for p, v in _walk(tree) if p and p[-1] == "class"]
    for path in objects:
        t = copy.deepcopy(tree)
        _set(t, path, payloads[0])
        variant("hostile object class", with_tree(t), hostile=True)
    # Structure: any value replaced by junk of another type, a huge or a deeply nested value.
    every = list(_walk(tree))
    for _ in range(70):
        path, _ = rng.choice(every[1:])
        t = copy.deepcopy(tree)
        _set(t, path, _junk(rng, payloads))
        variant("type confusion", with_tree(t))
    variant("deep nesting (file)", with_json(b'{"format": "tensorflux-saved-model", "x": ' + b"[" * 200_000 +
                                             b"]" * 200_000 + b"}"))
    t = copy.deepcopy(tree)
    _set(t, rng.choice([p for p, v in every if p and p[-1] == "attrs"]) + ("deep",), _deep(900))
    variant("deep nesting (attr)", with_tree(t))
    shapes = [p for p, v in every if p and p[-1] == "outputs" and isinstance(v, list) and v and
              isinstance(v[0], list) and len(v[0]) == 2 and isinstance(v[0][0], str)]
    for path in shapes[:6]:
        t = copy.deepcopy(tree)
        _set(t, path + (0, 1), [2 ** 40, 2 ** 40, 2 ** 40])
        variant("huge static shape", with_tree(t))
    # Bytes: bit flips and truncation of the JSON and of both array archives.
    for _ in range(60):
        data = bytearray(raw)
        i = rng.randrange(len(data))
        data[i] ^= 1 << rng.randrange(8)
        variant("bit flip (json)", with_json(bytes(data)))
    for _ in range(15):
        variant("truncation (json)", with_json(raw[:rng.randrange(len(raw))]))
    for name in ("saved_model.npz", os.path.join("variables", "variables.npz")):
        with open(os.path.join(base, name), "rb") as f:
            blob = f.read()
        for _ in range(12):
            data = bytearray(blob)
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
            variant(f"bit flip ({os.path.basename(name)})", lambda d, b=bytes(data), n=name: _write(os.path.join(d, n), b))
        for _ in range(5):
            variant(f"truncation ({os.path.basename(name)})",
                    lambda d, b=blob[:rng.randrange(len(blob))], n=name: _write(os.path.join(d, n), b))
        variant(f"npy header lie ({os.path.basename(name)})", lambda d, n=name: _write(os.path.join(d, n), _lying_npz()))
        variant(f"zip bomb ({os.path.basename(name)})", lambda d, n=name: _write(os.path.join(d, n), _bomb_npz()))


def _write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def _lying_npz():
    """An .npz whose one entry's header claims 10^12 float64 values but holds none."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": (10 ** 12,)})
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("a0.npy", header.getvalue())
        z.writestr("v0.npy", header.getvalue())
    return out.getvalue()


_BOMB_BYTES = 48 << 20


def _bomb_npz():
    """An .npz holding a genuine 48 MiB array of zeros, deflated to a few tens of kilobytes."""
    array = io.BytesIO()
    np.lib.format.write_array(array, np.zeros(_BOMB_BYTES // 8))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("a0.npy", array.getvalue())
        z.writestr("v0.npy", array.getvalue())
    return out.getvalue()


# -- .keras files and JSON configs ------------------------------------------------------------------
def make_keras_model(tf):
    keras = tf.keras
    inputs = keras.Input((3,), name="x")
    h = keras.layers.Dense(4, activation="relu", name="d1")(inputs)
    out = keras.layers.Dense(2, name="d2")(h) * 0.5 + inputs[:, :2]
    model = keras.Model(inputs, out)
    model.compile(optimizer="adam", loss="mse")
    return model


def keras_cases(tf, runner, rng, payloads):
    model = make_keras_model(tf)
    keras_path = os.path.abspath("base.keras")
    model.save(keras_path)
    expected = np.asarray(model(X))
    keras = tf.keras

    def load_file(p):
        return np.asarray(keras.models.load_model(p)(X))

    runner.run("keras", "unchanged", lambda: load_file(keras_path), expected)
    with zipfile.ZipFile(keras_path) as z:
        entries = {n: z.read(n) for n in z.namelist()}
    config = json.loads(entries["config.json"])
    config_text = model.to_json()
    shape_only = np.asarray(keras.models.model_from_json(config_text)(X)).shape   # fresh weights: compare shapes

    def keras_variant(kind, new_entries, hostile=False, compression=zipfile.ZIP_STORED):
        target = os.path.abspath("case.keras")
        with zipfile.ZipFile(target, "w", compression=compression) as z:
            for n, data in new_entries.items():
                z.writestr(n, data)
        runner.run("keras", kind, lambda: load_file(target), expected, hostile)

    def json_variant(kind, text, hostile=False):
        def load():
            out = np.asarray(keras.models.model_from_json(text)(X))
            return expected if out.shape == shape_only else out    # weights are fresh: the structure must match
        runner.run("json", kind, load, expected, hostile)

    def both(kind, new_config, hostile=False):
        keras_variant(kind, dict(entries, **{"config.json": json.dumps(new_config)}), hostile)
        json_variant(kind, json.dumps({k: v for k, v in new_config.items() if k != "compile_config"}), hostile)

    every = list(_walk(config))
    refs = [p for p, v in every if isinstance(v, str) and p and p[-1] in ("class_name", "module", "registered_name",
                                                                           "__function__", "operation", "layer", "name")]
    for path in rng.sample(refs, min(len(refs), 40)):
        t = copy.deepcopy(config)
        _set(t, path, rng.choice(payloads))
        both(f"hostile {path[-1]}", t, hostile=True)
    # Class references that name real callables of real modules.
    for module, name in (("os", "system"), ("builtins", "eval"), ("subprocess", "Popen"), ("posix", "system"),
                         ("os", "popen"), ("builtins", "exec")):
        t = copy.deepcopy(config)
        layer = t["config"]["layers"][1]
        layer.update({"module": module, "class_name": name, "registered_name": name,
                      "config": {"command": "touch SENTINEL"}})
        both(f"class {module}.{name}", t, hostile=True)
        t = copy.deepcopy(config)
        t["config"]["layers"][1]["config"]["activation"] = {"__function__": f"{module}.{name}"}
        both(f"function {module}.{name}", t, hostile=True)
        t = copy.deepcopy(config)
        t["config"]["layers"][1]["config"]["dtype"] = {"__class__": {"module": module, "class_name": name}}
        both(f"class ref {module}.{name}", t, hostile=True)
    # Config keys carrying text meant for code.
    for _ in range(10):
        path, value = rng.choice([(p, v) for p, v in every if isinstance(v, dict) and v])
        t = copy.deepcopy(config)
        key = rng.choice(sorted(value))
        _rename_key(t, path + (key,), rng.choice(payloads))
        both("hostile config key", t, hostile=True)
    # A Keras-style Lambda carrying bytecode: refused in safe mode (and always).
    t = copy.deepcopy(config)
    t["config"]["layers"][1] = {"module": "keras.layers", "class_name": "Lambda", "registered_name": None,
                                "config": {"name": "d1", "function": {"class_name": "__lambda__", "config": {
                                    "code": "4wEAAAAAAAAAAAAAAAEAAAADAAAA", "defaults": None, "closure": None}}}}
    both("lambda bytecode", t, hostile=True)
    # Type confusion anywhere in the config.
    for _ in range(50):
        path, _ = rng.choice(every[1:])
        t = copy.deepcopy(config)
        _set(t, path, _junk(rng, payloads))
        both("type confusion", t)
    # Huge shapes: the shape a model is built on, and a layer asking for a huge weight.
    sequential = json.loads(keras.Sequential([keras.layers.Dense(2)]).to_json())
    for shape in ([None, 10 ** 12], [None, 4096, 4096, 4096], [None, -3], [[None, 3]] * 5000):
        both("huge build shape", dict(sequential, build_shapes=shape))
    t = copy.deepcopy(config)
    t["config"]["layers"][1]["config"]["units"] = 10 ** 13
    both("huge units", t)
    # Deep nesting.
    deep_text = '{"class_name": "Sequential", "config": ' + "[" * 100_000 + "]" * 100_000 + "}"
    json_variant("deep nesting", deep_text)
    keras_variant("deep nesting", dict(entries, **{"config.json": deep_text}))
    t = copy.deepcopy(config)
    t["config"]["layers"][1]["config"]["kernel_initializer"] = "DEEP"
    deep_value = json.dumps(t).replace('"DEEP"', "[" * 5000 + "]" * 5000)
    keras_variant("deep nesting (value)", dict(entries, **{"config.json": deep_value}))
    json_variant("deep nesting (value)", deep_value)
    # Bytes: bit flips and truncation of the archive, and of the JSON text.
    with open(keras_path, "rb") as f:
        blob = f.read()
    for _ in range(40):
        data = bytearray(blob)
        i = rng.randrange(len(data))
        data[i] ^= 1 << rng.randrange(8)
        _write("flip.keras", bytes(data))
        runner.run("keras", "bit flip", lambda: load_file(os.path.abspath("flip.keras")), expected)
    for _ in range(10):
        _write("cut.keras", blob[:rng.randrange(len(blob))])
        runner.run("keras", "truncation", lambda: load_file(os.path.abspath("cut.keras")), expected)
    for _ in range(30):
        data = bytearray(config_text.encode())
        i = rng.randrange(len(data))
        data[i] ^= 1 << rng.randrange(8)
        json_variant("bit flip", bytes(data))
    for _ in range(10):
        json_variant("truncation", config_text[:rng.randrange(len(config_text))])
    # Zip bombs: a config entry, the weights entry, and an array inside the weights.
    keras_variant("zip bomb (config.json)", dict(entries, **{"config.json": b" " * _BOMB_BYTES}),
                  compression=zipfile.ZIP_DEFLATED)
    keras_variant("zip bomb (weights)", dict(entries, **{"model.weights.npz": b"\0" * _BOMB_BYTES}),
                  compression=zipfile.ZIP_DEFLATED)
    keras_variant("zip bomb (array in weights)", dict(entries, **{"model.weights.npz": _bomb_npz()}))
    keras_variant("npy header lie (weights)", dict(entries, **{"model.weights.npz": _lying_npz()}))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
