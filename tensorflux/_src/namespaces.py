"""TensorFlow's namespaces (`tf.math`, `tf.nn`, `tf.dtypes`, …) assembled from each module's `API` table.

Every module that defines public names lists them in `API = {namespace: [names]}`; "" means the top
level. Each namespace becomes a real module registered as `tensorflux.<name>` in `sys.modules`, so both
`tf.math.add` and `import tensorflux.math` work.
"""
import functools
import importlib
import os
import sys
import types as _pytypes

from .types import dtypes as _dtypes_mod
from .types import shape as _shape_mod
from .framework import nest as _nest_mod
from .framework import errors as _errors_mod
from .framework import graph as _graph
from .ops import operators  # noqa: F401  (installs Tensor's operators)
from .ops import registry as _registry
from . import lazy_index as _lazy_index

TENSORFLUX_VERSION = "0.2.0"  # this package's own release (pyproject.toml's version)



# The rooms below Keras, bottom floor first (docs/architecture.md).
_FLOORS = ("types", "framework", "ops", "runtime", "autograph", "function", "autodiff", "state", "io", "data",
           "distribute", "diagnostics")


# Rooms (module names under tensorflux._src) that `import tensorflux` leaves unloaded: whole features a
# program may never touch (file formats, image codecs, Example parsing, …). Their public names and op types
# are listed in `lazy_index.py`, written by tools/build_lazy_index.py, and each module is imported on the
# first read of one of its names or op types. A module of these rooms that the index does not list yet (a
# new file) is imported eagerly, so a stale index costs import time, never a missing name
# (tests/test_lazy_index.py fails until it is rebuilt).
LAZY_ROOMS = (
    # file formats, codecs, Example parsing, summaries, ONNX; the CSV and profiler writers
    "io", "data.csv", "runtime.xplane",
    # the compiled tier's block runner and compiled regions (imported when a kernel compiles)
    "runtime.blocked_map", "runtime.regions",
    # whole features: tf.data, tf.distribute, tf.sparse, tf.strings, tf.signal, tf.image
    "data", "distribute", "ops.sparse", "ops.strings", "ops.signal", "ops.signal_transforms", "ops.image",
    "ops.fingerprints", "ops.ragged.bincount",
    # breadth within eager rooms: linear algebra beyond matmul, special functions, space-to-batch
    "ops.linalg.banded", "ops.linalg.decompositions", "ops.linalg.linear_operator",
    "ops.linalg.linear_operator_structured", "ops.linalg.matrix_functions", "ops.linalg.structured",
    "ops.math.special", "ops.math.special_kernels", "ops.array.space_batch",
    # tf.nn beyond activations and bias_add: convolutions, pooling, losses, normalisation, sequences
    "ops.nn.atrous", "ops.nn.bias_add_grad", "ops.nn.candidate_sampling", "ops.nn.compiled_col2im", "ops.nn.compiled_pooling",
    "ops.nn.compiled_recurrent", "ops.nn.conv", "ops.nn.conv3d", "ops.nn.conv_generic", "ops.nn.ctc",
    "ops.nn.depthwise", "ops.nn.label_sequences", "ops.nn.local_response", "ops.nn.losses", "ops.nn.morphology",
    "ops.nn.normalization", "ops.nn.pooling", "ops.nn.recurrent_kernels", "ops.nn.space_depth",
    "ops.nn.statistics", "ops.nn.weighted_losses", "ops.nn.windows", "ops.nn.winograd",
    # AutoGraph's generated-code view (tf.autograph.to_code) and the eager/traced comparison
    "autograph.generated_code", "autograph.generated_code_analysis", "autograph.generated_code_lowering",
    "autograph.generated_module", "autograph.generated_runtime",
    "diagnostics.compare",
)
# Modules of those rooms that stay eager: io.records makes tf.train's protobuf message names lazy itself.
EAGER_IN_LAZY_ROOMS = ("io.records",)


_LAZY_ROOM_SET = frozenset(LAZY_ROOMS)


def is_lazy(name):
    """True for a module (named relative to tensorflux._src) in one of the LAZY_ROOMS."""
    if name in EAGER_IN_LAZY_ROOMS:
        return False
    prefix = name
    while True:                          # the name itself, then each enclosing package
        if prefix in _LAZY_ROOM_SET:
            return True
        prefix, dot, _ = prefix.rpartition(".")
        if not dot:
            return False


def implementation_modules():
    """Every module of the implementation below the Keras room that is loaded at import, imported, in a
    stable order (bottom floor first; within a room, a package before its modules, alphabetically).

    Discovering them (instead of listing them here) means a module split or added anywhere contributes its
    `API` table without touching this file; Keras is excluded because it is loaded on first use."""
    found, indexed = [], set(_lazy_index.MODULES)
    for room in _FLOORS:                 # bottom floor first: rooms register into lower ones on import
        if not (is_lazy(room) and room in indexed):
            found.append(importlib.import_module(f"{__package__}.{room}"))
        _walk(os.path.join(os.path.dirname(__file__), room), room + ".", indexed, found)
    return found


def _walk(path, prefix, indexed, found):
    # One scandir per package, in the order pkgutil.iter_modules gives (sorted names); pkgutil itself costs
    # a getmodulename per file, which showed in the import profile.
    entries = []
    with os.scandir(path) as listing:
        for entry in listing:
            if entry.name.endswith(".py") and entry.name != "__init__.py":
                entries.append((entry.name[:-3], False))
            elif (entry.is_dir() and entry.name.isidentifier()
                  and os.path.exists(os.path.join(entry.path, "__init__.py"))):
                entries.append((entry.name, True))
    for module, is_package in sorted(entries):
        name = prefix + module
        if not (is_lazy(name) and name in indexed):
            found.append(importlib.import_module(f"{__package__}.{name}"))
        if is_package:
            _walk(os.path.join(path, module), name + ".", indexed, found)


def load_module(name):
    """Imports the implementation module `name` (relative to tensorflux._src)."""
    return importlib.import_module(f"{__package__}.{name}")


def load_lazy_modules():
    """Imports every module of the lazy rooms (tools and tests that list all ops or names use it)."""
    for name in _lazy_index.MODULES:
        load_module(name)


def _lazy_attribute(module, attribute):
    return getattr(load_module(module), attribute)


def namespace(name, doc="", **members):
    """Creates (or extends) the module `tensorflux.<name>` holding `members`."""
    full = f"tensorflux.{name}"
    ns = sys.modules.get(full)
    if ns is None:
        ns = _pytypes.ModuleType(full, doc)
        sys.modules[full] = ns
    for k, v in members.items():
        setattr(ns, k, v)
    return ns


def collect(sources):
    """`{namespace: {name: object}}` from the API tables of `sources`."""
    table = {}
    for source in sources:
        for ns, names in getattr(source, "API", {}).items():
            bucket = table.setdefault(ns, {})
            for n in names:
                public, _, private = n.partition("=")  # "public=private" exports under another name
                bucket[public] = getattr(source, private or public)
    return table


def lazy_names(ns, loaders):
    """Adds to the namespace module `ns` names whose objects are made on first read: `loaders` maps each name
    to a function returning its object (for names whose objects need an optional package, such as the
    protobuf message classes of `tf.train`, so that `import tensorflux` never imports it). A module lists
    them in `LAZY_API = {namespace: {name: loader}}` beside its `API` table."""
    table = ns.__dict__.setdefault("_lazy_loaders", {})
    table.update(loaders)

    def __getattr__(name):  # PEP 562: only called for names not yet in the module
        if name not in table:
            raise AttributeError(f"module {ns.__name__!r} has no attribute {name!r}")
        value = table[name]()
        setattr(ns, name, value)          # cached: later reads are plain attribute reads
        return value

    ns.__getattr__ = __getattr__
    ns.__dir__ = lambda: sorted(set(ns.__dict__) | set(table))
    return ns


def install(sources, namespaces):
    """Creates the namespaces listed by `sources` (adding to `namespaces`); returns the top-level names."""
    table = collect(sources)
    top_level = table.pop("", {})
    for name, members in table.items():
        namespaces[name] = namespace(name, **members)
    for source in sources:
        for name, loaders in getattr(source, "LAZY_API", {}).items():
            namespaces[name] = lazy_names(namespace(name), loaders)
    for name, names in _lazy_index.NAMES.items():
        loaders = {public: functools.partial(_lazy_attribute, module, attribute)
                   for public, (module, attribute) in names.items()}
        if name:
            namespaces[name] = lazy_names(namespace(name), loaders)
        else:
            TOP_LEVEL_LAZY.update(loaders)
    pending = list(namespaces)
    while pending:                       # parents made on the way ("a.b" for "a.b.c") get linked too
        name = pending.pop()
        parent, _, child = name.rpartition(".")
        if parent:
            if parent not in namespaces:
                namespaces[parent] = namespace(parent)
                pending.append(parent)
            setattr(namespaces[parent], child, namespaces[name])
    return top_level


def _export_graph_def(graph, add_shapes=False):
    """`Graph.as_graph_def()`'s exporter (framework.graph.GRAPH_DEF_EXPORTER): the io room's, loaded on use."""
    return load_module("io.formats.graph_export").graph_def_or_none(graph, add_shapes)


_graph.GRAPH_DEF_EXPORTER[0] = _export_graph_def
NAMESPACES = {}
TOP_LEVEL_LAZY = {}   # top-level names of the lazy rooms: name -> loader (tensorflux/__init__.py's __getattr__)
_registry.OPS.set_lazy(_lazy_index.OP_TYPES, load_module)
TOP_LEVEL = install(implementation_modules(), NAMESPACES)
NAMESPACES["dtypes"] = namespace("dtypes", "TensorFlow's dtypes.",
                                 **{k: getattr(_dtypes_mod, k) for k in _dtypes_mod.__all__})
NAMESPACES["nest"] = namespace("nest", "Nested structures.",
                               **{k: getattr(_nest_mod, k) for k in _nest_mod.__all__})
NAMESPACES["errors"] = namespace("errors", _errors_mod.__doc__ or "",
                                  **{k: getattr(_errors_mod, k) for k in _errors_mod.__all__})
NAMESPACES["version"] = namespace(
    "version", "Versions: the TensorFlow API implemented, and tensorflux's own release.",
    VERSION="2.21.0",                 # the TensorFlow release whose public API and behaviour this implements
    GIT_VERSION="v2.21.0-tensorflux-" + TENSORFLUX_VERSION,
    COMPILER_VERSION="CPython (tensorflux has no compiled core)",
    GRAPH_DEF_VERSION=2474,           # GraphDef producer version of TensorFlow 2.21
    GRAPH_DEF_VERSION_MIN_CONSUMER=0,
    GRAPH_DEF_VERSION_MIN_PRODUCER=0,
    TENSORFLUX_VERSION=TENSORFLUX_VERSION)


# Rooms loaded on first use (`tf.keras`): they are built on the public `tensorflux` API, so they import
# the finished package instead of being part of its import.
LAZY = {"keras": "tensorflux.keras",  # the public face, tensorflux/keras/__init__.py
        "experimental": "tensorflux.experimental"}  # tf.experimental.numpy (the numpy_api room)


def load_lazy(name):
    return importlib.import_module(LAZY[name])
