"""TensorFlow's namespaces (`tf.math`, `tf.nn`, `tf.dtypes`, …) assembled from each module's `API` table.

Every module that defines public names lists them in `API = {namespace: [names]}`; "" means the top
level. Each namespace becomes a real module registered as `tensorflux.<name>` in `sys.modules`, so both
`tf.math.add` and `import tensorflux.math` work.
"""
import sys
import types as _pytypes

from .types import dtypes as _dtypes_mod
from .framework import nest as _nest_mod
from .framework import errors as _errors_mod
from .ops import convert, math, math_reduce, linalg, array, indexing, sorting, creation, nn, conv, random, string, logging
from . import variables, module
from . import function as _function
from .ops import functional, control_flow, tensor_array
from . import autograph as _autograph
from . import autodiff as _autodiff
from . import data as _data
from . import keras as _keras

SOURCES = (convert, math, math_reduce, linalg, array, indexing, sorting, creation, nn, conv, random, string, logging, variables, module, _function, functional, control_flow, tensor_array, _autograph, _autodiff, _data, _keras)


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


def collect():
    """`{namespace: {name: object}}` from every source module's API table."""
    table = {}
    for source in SOURCES:
        for ns, names in getattr(source, "API", {}).items():
            bucket = table.setdefault(ns, {})
            for n in names:
                public, _, private = n.partition("=")  # "public=private" exports under another name
                bucket[public] = getattr(source, private or public)
    return table


TABLE = collect()
TOP_LEVEL = TABLE.pop("", {})
NAMESPACES = {}
for _name, _members in TABLE.items():
    NAMESPACES[_name] = namespace(_name, **_members)
for _name in list(NAMESPACES):
    _parent, _, _child = _name.rpartition(".")
    if _parent:
        NAMESPACES.setdefault(_parent, namespace(_parent))
        setattr(NAMESPACES[_parent], _child, NAMESPACES[_name])
NAMESPACES["dtypes"] = namespace("dtypes", "TensorFlow's dtypes.",
                                 **{k: getattr(_dtypes_mod, k) for k in _dtypes_mod.__all__})
NAMESPACES["nest"] = namespace("nest", "Nested structures.",
                               **{k: getattr(_nest_mod, k) for k in _nest_mod.__all__})
NAMESPACES["errors"] = _errors_mod
