"""Loads hostile and corrupted files in a memory-capped process and reports what happened, as JSON.

Run as `python hostile_worker.py WORKDIR SEED MEMORY_CAP_BYTES`. It writes a small SavedModel (TensorFlow's
format: saved_model.pb + a tensor-bundle checkpoint), a `.keras` file and a model JSON config, then loads
many mutated copies of them (crafted text in every name-like protobuf field and config entry that would
run `touch SENTINEL` if it ever reached Python source or an attribute lookup, numbers and enums of the
right type but wrong value, bit flips, truncations, deep nesting, huge shapes and forged sizes in the
graph, the object graph and the bundle index, zip bombs). For each load it records the outcome: "ok"
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


def peak_rss_bytes():
    """This process's own peak resident memory. Linux's ru_maxrss survives fork and exec, so it would
    report the test runner's size when that is larger; /proc/self/status's VmHWM is this program's own."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


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
    report["max_rss_bytes"] = peak_rss_bytes()
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


# -- protocol buffers: every field of a message tree ---------------------------------------------------
def _fields(message, path=()):
    """Every (message, field descriptor, index or None, path) of scalar fields below `message`."""
    for field, value in message.ListFields():
        if field.message_type is not None:
            if field.message_type.GetOptions().map_entry:
                for key in list(value):
                    item = value[key]
                    if hasattr(item, "ListFields"):
                        yield from _fields(item, path + (field.name, key))
            elif _repeated(field):
                for i, item in enumerate(value):
                    yield from _fields(item, path + (field.name, i))
            else:
                yield from _fields(value, path + (field.name,))
        elif _repeated(field):
            for i in range(len(value)):
                yield message, field, i, path + (field.name,)
        else:
            yield message, field, None, path + (field.name,)


def _repeated(field):
    flag = getattr(field, "is_repeated", None)   # newer protobuf runtimes; `label` on older ones
    return flag if flag is not None else field.label == field.LABEL_REPEATED


def _assign(message, field, index, value):
    if index is None:
        setattr(message, field.name, value)
    else:
        getattr(message, field.name)[index] = value


def _junk_for(field, rng, payloads):
    """A value of the field's own type that is likely wrong: huge, negative, or hostile text."""
    cpp = field.cpp_type
    if cpp == field.CPPTYPE_STRING:
        text = rng.choice(payloads)
        return text.encode() if field.type == field.TYPE_BYTES else text
    if cpp == field.CPPTYPE_BOOL:
        return rng.choice([True, False])
    if cpp in (field.CPPTYPE_FLOAT, field.CPPTYPE_DOUBLE):
        return rng.choice([1e308, -1.0, float("nan")])
    if cpp == field.CPPTYPE_ENUM:
        return rng.choice([0, 1, 7, 20, 21, 101, 9999])
    signed = cpp in (field.CPPTYPE_INT32, field.CPPTYPE_INT64)
    big = (1 << 31) - 1 if cpp in (field.CPPTYPE_INT32, field.CPPTYPE_UINT32) else (1 << 62)
    return rng.choice([big, 0, 3, 999] + ([-1, -big] if signed else []))


_NAME_FIELDS = {"name", "op", "input", "local_name", "identifier", "concrete_function_name", "operation",
                "checkpoint_key", "full_name", "string_value", "argument_keywords", "concrete_functions", "s",
                "filename", "tags", "ret", "control_output"}


def saved_model_cases(tf, runner, rng, payloads):
    from tensorflux._src.io.formats import protos
    base = os.path.abspath("base_sm")
    expected = make_saved_model(tf, base)
    runner.run("saved_model", "unchanged", lambda: _load_and_call(tf, base), expected)
    pb_path = os.path.join(base, "saved_model.pb")
    with open(pb_path, "rb") as f:
        raw = f.read()
    SavedModel = protos.load("saved_model").SavedModel

    def variant(kind, mutate_dir, hostile=False):
        target = os.path.abspath("case_sm")
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(base, target)
        mutate_dir(target)
        runner.run("saved_model", kind, lambda: _load_and_call(tf, target), expected, hostile)

    def with_file(name, data):
        return lambda d: _write(os.path.join(d, name), data)

    def mutated(edit):
        message = SavedModel.FromString(raw)
        edit(message)
        return with_file("saved_model.pb", message.SerializeToString())

    every = list(_fields(SavedModel.FromString(raw)))
    # Crafted text in every name-like field: object names, op types, inputs, function names, attrs…
    names = [i for i, (_, field, _, path) in enumerate(every) if field.name in _NAME_FIELDS]
    for i in rng.sample(names, min(len(names), 120)):
        payload = rng.choice(payloads)

        def edit(message, i=i, payload=payload):
            target, field, index, _ = list(_fields(message))[i]
            _assign(target, field, index, payload.encode() if field.type == field.TYPE_BYTES else payload)
        variant(f"hostile {every[i][1].name}", mutated(edit), hostile=True)
    # Attr keys and map keys carrying text meant for code.
    for _ in range(15):
        payload = rng.choice(payloads)

        def edit(message, payload=payload):
            library = message.meta_graphs[0].graph_def.library
            nodes = [n for f in library.function for n in f.node_def if n.attr]
            node = nodes[rng.randrange(len(nodes))]
            key = rng.choice(sorted(node.attr))
            node.attr[payload].CopyFrom(node.attr[key])
            if rng.random() < 0.5:
                del node.attr[key]
        variant("hostile attr key", mutated(edit), hostile=True)
    # Type confusion: any number or enum replaced by a wrong one of its type.
    numbers = [i for i, (_, field, _, _) in enumerate(every) if field.cpp_type != field.CPPTYPE_STRING]
    for i in rng.sample(numbers, min(len(numbers), 90)):
        junk = _junk_for(every[i][1], rng, payloads)

        def edit(message, i=i, junk=junk):
            target, field, index, _ = list(_fields(message))[i]
            try:
                _assign(target, field, index, junk)
            except (ValueError, TypeError):
                _assign(target, field, index, 0)
        variant("type confusion", mutated(edit))
    # Deep nesting: an output structure nested within and past the readers' limits, and unknown fields.
    for depth in (40, 300):
        def deep(message, depth=depth):
            saved = next(iter(message.meta_graphs[0].object_graph_def.concrete_functions.values()))
            value = saved.output_signature
            value.Clear()
            for _ in range(depth):
                value = value.tuple_value.values.add()
            value.none_value.SetInParent()
        try:
            variant(f"deep nesting (structure {depth})", mutated(deep))
        except RecursionError:   # the protobuf runtime refuses to build it: nothing to load
            pass
    inner = b""
    for _ in range(20_000):
        inner = b"\x5a" + _varint(len(inner)) + inner
    variant("deep nesting (unknown fields)", with_file("saved_model.pb", raw + b"\x0a" + _varint(len(inner)) + inner))
    # Memory: shapes and sizes that would allocate terabytes if believed.
    def huge_variable(message):
        for node in message.meta_graphs[0].object_graph_def.nodes:
            if node.WhichOneof("kind") == "variable":
                del node.variable.shape.dim[:]
                node.variable.shape.dim.add().size = 1 << 40
                node.variable.shape.dim.add().size = 1 << 40
    variant("bomb (variable shape)", mutated(huge_variable))

    def huge_constant(message):
        library = message.meta_graphs[0].graph_def.library
        for f in library.function:
            for n in f.node_def:
                if n.op == "Const":
                    tensor = n.attr["value"].tensor
                    del tensor.tensor_shape.dim[:]
                    tensor.tensor_shape.dim.add().size = 1 << 40
                    return
    variant("bomb (constant shape)", mutated(huge_constant))

    def huge_output_shapes(message):
        for f in message.meta_graphs[0].graph_def.library.function:
            for n in f.node_def:
                if "_output_shapes" in n.attr:
                    for shape in n.attr["_output_shapes"].list.shape:
                        for d in shape.dim:
                            d.size = 1 << 40
    variant("huge static shape", mutated(huge_output_shapes))
    variant("bomb (bundle entry)", lambda d: _forge_bundle_entry(tf, d, 1 << 40))
    variant("header lie (bundle entry)", lambda d: _forge_bundle_entry(tf, d, None))
    variant("bomb (object graph count)", lambda d: _forge_object_graph(tf, d))
    # Bytes: bit flips and truncation of saved_model.pb and of the variables' index and data.
    for name, flips, cuts in (("saved_model.pb", 60, 15), (os.path.join("variables", "variables.index"), 25, 8),
                              (os.path.join("variables", "variables.data-00000-of-00001"), 10, 4),
                              ("fingerprint.pb", 5, 2)):
        with open(os.path.join(base, name), "rb") as f:
            blob = f.read()
        for _ in range(flips):
            data = bytearray(blob)
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
            variant(f"bit flip ({os.path.basename(name)})", with_file(name, bytes(data)))
        for _ in range(cuts):
            variant(f"truncation ({os.path.basename(name)})", with_file(name, blob[:rng.randrange(len(blob))]))


def _varint(value):
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _rewrite_bundle(tf, directory, edit):
    """Rewrites the variables' index with `edit(key, BundleEntryProto)` applied to every entry (CRCs kept)."""
    from tensorflux._src.io.formats import protos, sstable
    index = os.path.join(directory, "variables", "variables.index")
    with open(index, "rb") as f:
        table = sstable.read_table(f.read())
    pb = protos.load("tensor_bundle")
    out = io.BytesIO()
    writer = sstable.TableWriter(out)
    for key, value in table:
        if key:
            entry = pb.BundleEntryProto.FromString(value)
            edit(key, entry)
            value = entry.SerializeToString()
        writer.add(key, value)
    writer.finish()
    _write(index, out.getvalue())


def _forge_bundle_entry(tf, directory, size):
    def edit(key, entry):
        if key != b"_CHECKPOINTABLE_OBJECT_GRAPH":
            if size is None:
                entry.size = 1 << 40      # the data file holds a few bytes
            else:
                del entry.shape.dim[:]
                entry.shape.dim.add().size = size
                entry.shape.dim.add().size = size
                entry.size = 4 * size * size if size * size < (1 << 61) else (1 << 62)
    _rewrite_bundle(tf, directory, edit)


def _forge_object_graph(tf, directory):
    """A checkpoint whose object graph claims millions of nodes that all point at node 10**9."""
    from tensorflux._src.io.formats import protos
    from tensorflux._src.io.formats.tensor_bundle import BundleReader, BundleWriter
    prefix = os.path.join(directory, "variables", "variables")
    with BundleReader(prefix) as reader:
        values = {k: reader.read(k) for k in reader.keys()}
    graph = protos.load("trackable_object_graph").TrackableObjectGraph()
    node = graph.nodes.add()
    node.children.add(node_id=10 ** 9, local_name="w")
    values["_CHECKPOINTABLE_OBJECT_GRAPH"] = np.array(graph.SerializeToString(), dtype=object)
    with BundleWriter(prefix) as writer:
        for key, value in values.items():
            writer.add(key, value)


def _write(path, data):
    with open(path, "wb") as f:
        f.write(data)


_BOMB_BYTES = 48 << 20


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
    keras_variant("zip bomb (weights)", dict(entries, **{"model.weights.h5": b"\0" * _BOMB_BYTES}),
                  compression=zipfile.ZIP_DEFLATED)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
