"""Records TensorFlow 2.21's and Keras 3.15's public names: the reference list of `tests/test_public_api.py`
and `tools/api_coverage.py` (`tests/reference/public_names.json`).

Run it under the reference interpreter (TensorFlow and Keras installed), never under tensorflux's:

    ~/venv-tf/bin/python tools/record_public_names.py tests/reference/public_names.json

Each namespace's names are `dir()` of the module without names starting with '_'; `tensorflow` holds
`tf.<namespace>` (with `tf.keras.*` as TensorFlow re-exports it), `keras` holds `keras.<namespace>` of the
standalone Keras package. The namespaces are the ones already in the file (plus `--add ns1,ns2`), so the
list is regenerated as it was first made; the file is written atomically.

    ~/venv-tf/bin/python tools/record_public_names.py tests/reference/public_names.json \
        --aliases tools/tf_public_aliases.json

also records which public functions and classes are one object under several names (`tf.add` is
`tf.math.add`), so `tools/api_coverage.py` can tell an alias TensorFlow has from a name pointed at an
unrelated function.
"""
import argparse
import importlib
import json
import os
import re
import sys
import tempfile


def _module(root, dotted):
    """`root.<dotted>` by attribute walk (sub-namespaces such as tf.keras.layers are attributes)."""
    obj = root
    for part in filter(None, dotted.split(".")):
        obj = getattr(obj, part)
    return obj


def _names(root, dotted):
    return sorted(n for n in dir(_module(root, dotted)) if not n.startswith("_"))


def _keras_names(keras, dotted):
    # Standalone Keras lists its namespaces as "keras" and "keras.<sub>".
    return _names(keras, dotted[len("keras"):].lstrip("."))


_DOCUMENTED_ALIAS = re.compile(r"^\s*(?:Shorthand|Alias) for `(?:tf\.)?([\w.]+)`")


def _aliases(tf, namespaces):
    """{"ns.name": "ns.name" of the first name bound to the same function/class}, for shared objects, and
    for names whose docstring says they are a shorthand/alias of another (keras.ops.abs of absolute)."""
    first, out = {}, {}
    documented = {}
    for ns in sorted(namespaces):
        module = _module(tf, ns)
        for name in _names(tf, ns):
            obj = getattr(module, name, None)
            if not callable(obj) or isinstance(obj, type(tf)):
                continue
            key = f"{ns}.{name}" if ns else name
            canonical = first.setdefault(id(obj), key)
            if canonical != key:
                out[key] = canonical
                out.setdefault(canonical, canonical)
            said = _DOCUMENTED_ALIAS.match(getattr(obj, "__doc__", None) or "")
            if said:
                documented[key] = said.group(1)
    for key, target in documented.items():
        canonical = out.get(target, target)
        out.setdefault(target, canonical)
        for other, group in list(out.items()):  # the whole group of `key` joins the target's group
            if group == out.get(key, key) and other != key:
                out[other] = canonical
        out[key] = canonical
    return out


def _write(path, record):
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".public_names.")
    with os.fdopen(fd, "w") as f:
        json.dump(record, f, indent=0, sort_keys=True)
    os.chmod(tmp, 0o644)  # mkstemp makes the file private; the checked-in list is readable by all
    os.replace(tmp, path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", help="the JSON file to (re)write; its namespaces are kept")
    parser.add_argument("--aliases", help="also write TensorFlow's alias groups (JSON) to this path")
    parser.add_argument("--add", default="", help="comma-separated TensorFlow namespaces to add (e.g. math.special)")
    args = parser.parse_args(argv)
    tf = importlib.import_module("tensorflow")
    keras = importlib.import_module("keras")
    with open(args.path) as f:
        old = json.load(f)
    tf_namespaces = set(old["tensorflow"]) | {n for n in args.add.split(",") if n}
    record = {
        "_about": old["_about"],
        "keras": {ns: _keras_names(keras, ns) for ns in sorted(old["keras"])},
        "tensorflow": {ns: _names(tf, ns) for ns in sorted(tf_namespaces)},
    }
    sys.stderr.write(f"TensorFlow {tf.__version__}, Keras {keras.__version__}\n")
    _write(args.path, record)
    if args.aliases:
        _write(args.aliases, _aliases(tf, [ns for ns in tf_namespaces if ns != "compat.v1"]))


if __name__ == "__main__":
    main()
