"""Writes tensorflux/_src/lazy_index.py: the public names and op types of the rooms loaded on first use.

    .venv/bin/python tools/build_lazy_index.py           # rebuild the index
    .venv/bin/python tools/build_lazy_index.py --check   # exit 1 if the index is stale (tests/test_lazy_index.py)

`import tensorflux` leaves the modules of `namespaces.LAZY_ROOMS` unloaded. To do that it must know, without
importing them, which public names and which op types each one provides; this tool finds out by importing
them in a child process, and checks that doing so is safe:
- a module imported by the eager part anyway is not lazy (it stays out of the index);
- a lazy module may not provide a name an eager module provides too (which object wins would then depend on
  whether it was loaded), nor use `LAZY_API`;
- importing the lazy modules may not change the eager modules' state (module globals, the classes they
  define, their dicts/lists/sets), except by adding op types to the registry: a module that installs
  something into the eager part (a dispatch wrapper, a Tensor method, a gradient for an eager op) would behave
  differently before and after its first use, so it has to stay eager. Each such change is reported by name.
"""
import argparse
import ast
import json
import os
import pprint
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INDEX = os.path.join(ROOT, "tensorflux", "_src", "lazy_index.py")

# Runs in the child: import with an index that marks every lazy-room module as lazy, so that only what the
# eager part imports gets loaded; then load the rest, watching what changes.
_CHILD = r'''
import importlib, json, os, pkgutil, sys, types
SRC = os.path.join(sys.argv[1], "tensorflux", "_src")
ROOMS = json.loads(sys.argv[2])

EAGER = json.loads(sys.argv[4])

def is_lazy(name):
    return any(name == r or name.startswith(r + ".") for r in ROOMS) and name not in EAGER

def walk(path, prefix, out):
    for info in pkgutil.iter_modules([path]):
        out.append(prefix + info.name)
        if info.ispkg:
            walk(os.path.join(path, info.name), prefix + info.name + ".", out)

FLOORS = json.loads(sys.argv[3])
order = []
for room in FLOORS:
    order.append(room)
    walk(os.path.join(SRC, room), room + ".", order)
candidates = [m for m in order if is_lazy(m)]
fake = types.ModuleType("tensorflux._src.lazy_index")
fake.MODULES, fake.NAMES, fake.OP_TYPES = tuple(candidates), {}, {}
sys.modules["tensorflux._src.lazy_index"] = fake

import tensorflux  # noqa: E402
from tensorflux._src import namespaces  # noqa: E402
from tensorflux._src.ops.registry import OPS  # noqa: E402

P = "tensorflux._src."
eager = [m for m in order if P + m in sys.modules]
lazy = [m for m in candidates if P + m not in sys.modules]

def snapshot(modules):
    snap = {}
    for name in modules:
        module = sys.modules[P + name]
        for key, value in vars(module).items():
            if value is OPS or (isinstance(value, types.ModuleType) and value.__name__ == f"{module.__name__}.{key}"):
                continue   # the registry grows by design; a package gains its submodules as attributes
            size = len(value) if isinstance(value, (dict, list, set)) else None
            snap[f"{name}.{key}"] = (id(value), size)
            if isinstance(value, list) and len(value) <= 64:     # a hook slot such as [None] set on import
                snap[f"{name}.{key}[*]"] = tuple(id(v) for v in value)
            if isinstance(value, dict) and len(value) <= 4096:   # a registry entry replaced on import
                snap[f"{name}.{key}{{*}}"] = tuple((k, id(v)) for k, v in value.items()
                                                   if isinstance(k, (str, int, float, bytes)))
            if isinstance(value, dict):           # one level down: registries of lists ({type: [handlers]})
                for k, v in list(value.items()):
                    if isinstance(v, (dict, list, set)):
                        snap[f"{name}.{key}[{k!r}]"] = (id(v), len(v))
            if isinstance(value, type) and value.__module__ == module.__name__:
                for attr, member in vars(value).items():
                    snap[f"{name}.{key}.{attr}"] = (id(member), None)
    for op_type, opdef in dict.items(OPS):        # a gradient or in-place rule installed on an eager op
        snap[f"OPS[{op_type}]"] = tuple(id(getattr(opdef, slot, None)) for slot in type(opdef).__slots__)
    return snap

before = snapshot(eager)
op_types, problems = {}, []
loaded = []          # lazy modules loaded so far, in order
for name in lazy:
    known = set(dict.keys(OPS))
    was_loaded = set(sys.modules)
    earlier = [m for m in loaded if P + m in sys.modules]
    earlier_state = snapshot(earlier) if P + name not in sys.modules else None
    importlib.import_module(P + name)
    for op in sorted(set(dict.keys(OPS)) - known):
        op_types[op] = name
    if earlier_state is not None:
        # A lazy module may not change another lazy module loaded before it either: that one can be loaded
        # alone (by one of its names), and would then miss the change.
        later_state = snapshot(earlier)
        for key in sorted(set(earlier_state) | set(later_state)):
            if not key.startswith("OPS[") and earlier_state.get(key) != later_state.get(key):
                problems.append(f"loading {name} changes {key}, which can be loaded without it: import {name} "
                                f"where that module's room is imported")
    loaded.extend(m for m in lazy if P + m in sys.modules and P + m not in was_loaded)
after = snapshot(eager)
for key in sorted(set(before) | set(after)):
    if key.startswith("OPS[") and key not in before:
        continue                                   # an op type of the lazy rooms themselves
    if before.get(key) != after.get(key):
        problems.append(f"loading the lazy rooms changes the eager part: {key}")

eager_names = {}
eager_set = set(eager)
for name in eager:
    for ns, names in getattr(sys.modules[P + name], "API", {}).items():
        for n in names:
            eager_names.setdefault(ns, set()).add(n.partition("=")[0])
names = {}
for name in lazy:
    module = sys.modules[P + name]
    if getattr(module, "LAZY_API", None):
        problems.append(f"{name} has LAZY_API: a lazy room cannot hold lazy names of its own")
    for ns, entries in getattr(module, "API", {}).items():
        for entry in entries:
            public, _, private = entry.partition("=")
            if public in eager_names.get(ns, ()):
                problems.append(f"{name} provides {ns or 'tf'}.{public}, which an eager module provides too")
            owner = getattr(getattr(module, private or public, None), "__module__", None) or ""
            if owner.startswith(P) and owner[len(P):] in eager_set and callable(getattr(module, private or public)):
                # An eager object re-exported by a lazy module escapes what the eager part does to its
                # namespaces at import (the ragged dispatch wraps tf.nn.sigmoid where tf.nn holds it).
                problems.append(f"{name} re-exports {ns or 'tf'}.{public} from the eager {owner[len(P):]}: export it "
                                f"from an eager module")
            names.setdefault(ns, {})[public] = [name, private or public]   # later modules win, as in install()
print(json.dumps({"modules": lazy, "names": names, "op_types": op_types, "problems": problems}))
'''


def build():
    src = os.path.join(ROOT, "tensorflux", "_src", "namespaces.py")
    literals = {node.targets[0].id: ast.literal_eval(node.value)   # read without importing tensorflux
                for node in ast.parse(open(src).read()).body
                if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id in ("LAZY_ROOMS", "EAGER_IN_LAZY_ROOMS", "_FLOORS")}
    rooms, floors, eager = literals["LAZY_ROOMS"], literals["_FLOORS"], literals["EAGER_IN_LAZY_ROOMS"]
    env = dict(os.environ, PYTHONPATH=ROOT)
    out = subprocess.run([sys.executable, "-c", _CHILD, ROOT, json.dumps(rooms), json.dumps(floors),
                          json.dumps(eager)],
                         capture_output=True, text=True, env=env, cwd=ROOT)
    if out.returncode:
        raise SystemExit(out.stderr)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    if result["problems"]:
        raise SystemExit("cannot build the lazy index:\n  " + "\n  ".join(result["problems"]))
    names = {ns: {n: tuple(v) for n, v in sorted(entries.items())} for ns, entries in sorted(result["names"].items())}
    return (
        '"""The public names and op types of the rooms `import tensorflux` leaves unloaded (namespaces.LAZY_ROOMS).\n\n'
        "Written by tools/build_lazy_index.py from the modules themselves: do not edit; rebuild it after adding or\n"
        'changing a module in those rooms (tests/test_lazy_index.py says when)."""\n'
        f"MODULES = {pprint.pformat(tuple(result['modules']), width=116, compact=True)}\n\n"
        "# namespace ('' is the top level) -> public name -> (module, attribute)\n"
        f"NAMES = {pprint.pformat(names, width=116, compact=True, sort_dicts=True)}\n\n"
        "# op type -> the module whose import registers it\n"
        f"OP_TYPES = {pprint.pformat(dict(sorted(result['op_types'].items())), width=116, compact=True)}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the checked-in index is stale")
    args = parser.parse_args()
    text = build()
    if args.check:
        current = open(INDEX).read() if os.path.exists(INDEX) else ""
        if current != text:
            raise SystemExit("tensorflux/_src/lazy_index.py is stale: run .venv/bin/python tools/build_lazy_index.py")
        return
    tmp = INDEX + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, INDEX)
    print(f"wrote {os.path.relpath(INDEX, ROOT)}")


if __name__ == "__main__":
    main()
