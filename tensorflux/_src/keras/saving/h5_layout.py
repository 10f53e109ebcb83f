"""Keras 3's weights layout in HDF5: where each variable of a model lives in a `.weights.h5` file (and in
the `model.weights.h5` entry of a `.keras` archive), written and read through h5py.

Keras walks a model as a tree of "saveables" (layers, models, optimizers) and gives each a group holding
a `vars` subgroup (attribute `name`: the object's name) with its own variables as datasets `"0"`, `"1"`, …
— trainable ones first, in creation order. The path of a child is the attribute that holds it:

    vars                                   the model's own variables (usually none)
    layers/dense/vars/0, /1                Sequential and Functional models: their `layers`, first,
    layers/dense_1/vars/...                named by snake-case class name and a counter, not by layer
    layers/lstm/cell/vars/0                name; then every other attribute holding a layer, sorted by
    d1/vars/0                              name with private ones last (`self.d1 = Dense(...)`; a model's
    layers/gru/...                         `layers` property is one of them, so `self.rnn = GRU(...)` is
                                           found there first)
    blocks/dense/vars/0                    a list of layers in an attribute
    optimizer/vars/0, /1, ...              iterations, learning rate (unless scheduled), then the slots
    optimizer/inner_optimizer/vars/...     a LossScaleOptimizer's inner optimizer again, on its own
    optimizer/optimizers/sgd/vars/...      a MultiOptimizer's optimizers again, each on its own

A layer may also keep arrays under names beside its numbered variables, as Keras' `save_own_variables`
stores them: a TF-IDF lookup layer's (and TextVectorization's) `vars/idf_weights`. Only the names a class
lists in `_keras_named_weights` are written and read; they go through the layer's own
`save_own_variables(store)` / `load_own_variables(store)`.

An object reached twice is stored at the first path only. Optimizer slots are in Keras's order: where
Keras creates several slots per variable at once (Adam's momentum and velocity) they alternate by
variable.

Files are untrusted: only paths this walk derives from the model are looked up (names in the file are
never used to find attributes or code), links must be plain (no external files, no virtual or external
datasets), and a dataset must have the numeric dtype class and exactly the shape of its variable before
a byte is read. Malformed files raise ValueError.
"""
import warnings

import numpy as np

from ...framework.tensor import EagerTensor
from ..layers.input_layer import InputLayer
from ..layers.layer import Layer
from ..models.model import Model, Sequential
from ..naming import to_snake_case
from ..optimizers.optimizer import Optimizer

__all__ = ["require_h5py", "write_weights", "read_weights", "saveables"]


def require_h5py():
    """The h5py module, imported on first use (it is the optional extra `[io]`)."""
    try:
        import h5py
    except ImportError:
        raise ImportError('Keras weight files (`.weights.h5`, `.keras`) are HDF5 files and need the h5py '
                          'package: pip install "tensorflux[io]"') from None
    return h5py


# -- the walk ---------------------------------------------------------------------------------------------
def _is_graph_model(obj):
    return isinstance(obj, (Sequential, Model._functional))


def _children(obj):
    """(attribute, value) pairs in Keras's order: a Sequential's or Functional's `layers` first, then
    attributes by name, private ones last."""
    if _is_graph_model(obj):
        yield "layers", obj.layers
    attributes = dict(vars(obj))
    if isinstance(obj, Model):
        # Keras walks a model's `layers` property among its attributes, so a subclassed model's sublayers
        # sorting after "layers" are stored under it (`layers/dense`), those before under their attribute
        attributes.setdefault("layers", obj.layers)
        attributes.setdefault("optimizer", getattr(obj, "optimizer", None))
    for name in sorted(attributes, key=lambda n: "~" + n if n.startswith("_") else n):
        if name.startswith("__") or (name.startswith("_") and _is_graph_model(obj)):
            continue      # a Sequential's or Functional's private attributes re-hold its layers (and its Input)
        yield name, attributes[name]


def _own_variables(obj):
    if isinstance(obj, Optimizer):
        return _optimizer_variables(obj)
    seen, out = set(), []
    for v in obj._own_variables():
        if id(v) not in seen:
            seen.add(id(v))
            out.append(v)
    return out


def saveables(model):
    """[(path, object, [its own variables in Keras's order])] for every layer and optimizer under `model`."""
    found, visited = [], set()

    def visit(obj, path):
        if id(obj) in visited:
            return
        visited.add(id(obj))
        parts = _KERAS_SUBLAYERS.get(type(obj).__name__)
        found.append((path, obj, [] if parts else _own_variables(obj)))
        if isinstance(obj, Optimizer):
            # Keras's walk also stores a wrapper's inner optimizers, each under its own group:
            # `optimizer/inner_optimizer/vars` (LossScaleOptimizer), `optimizer/optimizers/sgd/vars`
            # (MultiOptimizer); their variables are in the wrapper's own list too
            inner = getattr(obj, "inner_optimizer", None)
            if isinstance(inner, Optimizer):
                visit(inner, f"{path}/inner_optimizer")
            used = {}
            for item in getattr(obj, "optimizers", None) or ():
                if isinstance(item, Optimizer):
                    name = to_snake_case(_keras_class_name(item))
                    used[name] = used.get(name, -1) + 1
                    visit(item, f"{path}/optimizers/{name}" + (f"_{used[name]}" if used[name] else ""))
            return
        for attribute, name, variables in parts or ():
            held = [getattr(obj, v, None) for v in variables]
            found.append((f"{path}/{attribute}" if path else attribute, _Part(name),
                          [v for v in held if v is not None]))
        for attribute, child in _children(obj):
            child_path = f"{path}/{attribute}" if path else attribute
            if isinstance(child, (Layer, Optimizer)):
                visit(child, child_path)
            elif isinstance(child, (list, tuple, dict)):
                used = {}
                for item in (child.values() if isinstance(child, dict) else child):
                    if not isinstance(item, (Layer, Optimizer)):
                        continue
                    name = to_snake_case(_keras_class_name(item))
                    used[name] = used.get(name, -1) + 1
                    visit(item, f"{child_path}/{name}" + (f"_{used[name]}" if used[name] else ""))
    visit(model, "")
    return found


class _Part:
    """A sublayer Keras has where tensorflux's layer holds the variables itself (see _KERAS_SUBLAYERS)."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"<{self.name}>"


# Layers whose variables Keras keeps in sublayers: (attribute in Keras, sublayer name, tensorflux attributes
# holding its variables), in the order Keras's walk visits them (public attributes first, by name).
_KERAS_SUBLAYERS = {
    "MultiHeadAttention": (("key_dense", "key", ("key_kernel", "key_bias")),
                           ("output_dense", "attention_output", ("output_kernel", "output_bias")),
                           ("query_dense", "query", ("query_kernel", "query_bias")),
                           ("value_dense", "value", ("value_kernel", "value_bias")),
                           ("_dropout_layer", "dropout", ()), ("_softmax", "softmax", ())),
}


def _keras_class_name(obj):
    if isinstance(obj, Model._functional) and type(obj).__name__.startswith("_"):
        return "Functional"
    return type(obj).__name__


# Slots Keras creates together (one `add_optimizer_variables` call with several names): stored alternating.
_SLOTS_MADE_TOGETHER = (("momentum", "velocity"), ("accumulated_grad", "accumulated_delta_var"),
                        ("accumulator", "linear"), ("momentum", "norm"))


def _optimizer_variables(optimizer):
    """The optimizer's variables in Keras 3's order (see the module docstring).

    tensorflux's list is: iterations, learning rate, then one block of slots per slot name (each block
    one slot per trainable variable, in their order), then any extra variable (Nadam's u_product)."""
    variables = optimizer.variables
    head = [variables[0]] + ([] if optimizer._schedule is not None else [variables[1]])
    rest, count = variables[2:], len(optimizer._trainable_variables)
    blocks = []         # (slot name, its slots), while the variables come in whole blocks of slots
    while count and len(rest) >= count and _slot_of(rest[0], optimizer._trainable_variables[0]) is not None:
        blocks.append((_slot_of(rest[0], optimizer._trainable_variables[0]), rest[:count]))
        rest = rest[count:]
    ordered, i = [], 0
    while i < len(blocks):
        if i + 1 < len(blocks) and (blocks[i][0], blocks[i + 1][0]) in _SLOTS_MADE_TOGETHER:
            ordered += [v for pair in zip(blocks[i][1], blocks[i + 1][1]) for v in pair]
            i += 2
        else:
            ordered += blocks[i][1]
            i += 1
    return head + ordered + rest


def _slot_of(slot_variable, reference):
    """The slot name ("momentum") of a slot variable made for `reference`, or None for another variable."""
    prefix = (getattr(reference, "path", None) or reference.name.rsplit(":", 1)[0]).replace("/", "_") + "_"
    name = slot_variable.name.rsplit(":", 1)[0].split("/", 1)[-1]
    return name[len(prefix):] if name.startswith(prefix) else None


# -- writing ----------------------------------------------------------------------------------------------
def write_weights(model, target):
    """Writes `model`'s weights (and its optimizer's) in Keras 3's layout to `target`, a path or a binary
    file object open for writing."""
    h5py = require_h5py()
    with h5py.File(target, "w") as f:
        for path, obj, variables in saveables(model):
            group = f.create_group(f"{path}/vars" if path else "vars")
            group.attrs["name"] = obj.name
            for i, variable in enumerate(variables):
                # a read-only view of the current value: h5py copies it into the file, no copy is needed first
                group.create_dataset(str(i), data=np.asarray(variable.read_value()))
            if _named_weights(obj):
                store = {}
                obj.save_own_variables(store)
                for name in _named_weights(obj):
                    if name in store:
                        group.create_dataset(name, data=np.asarray(store[name]))


def _named_weights(obj):
    """The names `obj` keeps arrays under beside its numbered variables (an allow-list from its class)."""
    names = getattr(type(obj), "_keras_named_weights", ())
    return names if hasattr(obj, "save_own_variables") and hasattr(obj, "load_own_variables") else ()


def stored_bytes(model):
    """The bytes `write_weights` stores for `model`'s variables (its file is this plus a little metadata)."""
    return sum(variable.shape.num_elements() * variable.dtype.size
               for _, _, variables in saveables(model) for variable in variables
               if variable.shape.is_fully_defined())


# -- reading ----------------------------------------------------------------------------------------------
def read_weights(model, source, label, skip_mismatch=False, before_assigning=None):
    """Assigns the weights stored in `source` (a path or a binary file object) to `model` (and to its
    optimizer when the file has optimizer state and the model is compiled). `before_assigning()`, when
    given, runs once everything is read and checked, before the first assignment (an archive's checksum).

    As Keras: objects whose variables are missing or differ in count or shape are collected and reported
    in one ValueError ("A total of N objects could not be loaded…"); with `skip_mismatch` they are
    warned about and left as they are. An optimizer that does not match is always skipped with a warning.
    Nothing is assigned unless the whole file checked out."""
    h5py = require_h5py()
    if not model.built:
        raise ValueError("You are loading weights into a model that has not yet been built. Try building the "
                         "model first by calling it on some data or by using `build()`.")
    try:
        f = h5py.File(source, "r")
    except (OSError, ValueError) as e:      # OSError, as Keras (h5py) raises it: not an HDF5 file
        raise OSError(f"{label} is not an HDF5 weights file ({e}).") from None
    with f:
        optimizer = getattr(model, "optimizer", None) if isinstance(model, Model) else None
        if isinstance(optimizer, Optimizer) and not optimizer.built and _plain_group(f, "optimizer/vars", label):
            optimizer.build(model.trainable_variables)
        pending, failed = [], []
        for path, obj, variables in saveables(model):
            group = _plain_group(f, f"{path}/vars" if path else "vars", label)
            if group is None and isinstance(obj, Optimizer):
                continue      # weights saved without the optimizer: it keeps its state
            try:
                values = _read_group(group, variables, obj, path, label)
                named = _read_named(group, obj, path, label)
            except _Mismatch as e:
                if isinstance(obj, Optimizer):
                    warnings.warn(f"Skipping variable loading for optimizer '{obj.name}': {e}", stacklevel=3)
                else:
                    failed.append((obj, str(e)))
                continue
            pending.append((variables, values))
            if named is not None:
                pending.append((obj, named))
        if failed:
            message = (f"A total of {len(failed)} objects could not be loaded. Example error message for object "
                       f"{failed[0][0]!r}:\n\n{failed[0][1]}\n\nList of objects that could not be loaded:\n"
                       f"{[obj for obj, _ in failed]!r:.2000}")
            if not skip_mismatch:
                raise ValueError(message)
            warnings.warn(message, stacklevel=3)      # the objects that failed were left out of `pending`
    if before_assigning is not None:
        before_assigning()
    for variables, values in pending:
        if isinstance(values, dict):
            variables.load_own_variables(values)      # (the object, its named arrays)
            continue
        for variable, value in zip(variables, values):
            variable.assign(EagerTensor(value))       # read for this assignment alone: no defensive copy


class _Mismatch(Exception):
    """The file's variables for one object do not fit it (collected, then reported as Keras does)."""


def _plain_group(f, path, label):
    """The group at `path` reached through hard links only, or None when absent."""
    h5py = require_h5py()
    node = f
    for part in path.split("/"):
        try:
            link = node.get(part, getlink=True)
            if link is None:
                return None
            if not isinstance(link, h5py.HardLink):
                raise ValueError(f"{label}: '{path}' is a {type(link).__name__}; weight files may hold plain "
                                 f"groups and datasets only.")
            node = node[part]
        except (OSError, KeyError, TypeError, RuntimeError) as e:
            raise ValueError(f"{label}: cannot read '{path}' ({e}).") from None
        if not isinstance(node, h5py.Group):
            raise ValueError(f"{label}: '{path}' is not a group.")
    return node


def _short(variable):
    return variable.name.rsplit(":", 1)[0].rsplit("/", 1)[-1]


def _read_group(group, variables, obj, path, label):
    """The arrays of `group` (None: absent) for `variables`, checked; raises _Mismatch."""
    h5py = require_h5py()
    try:
        count = 0 if group is None else len(group) - sum(name in group for name in _named_weights(obj))
    except (OSError, ValueError, KeyError, RuntimeError) as e:
        raise ValueError(f"{label}: cannot list '{path}/vars' ({e}).") from None
    if count != len(variables):
        what = "Optimizer" if isinstance(obj, Optimizer) else "Layer"
        raise _Mismatch(f"{what} '{obj.name}' expected {len(variables)} variables, but received {count} variables "
                        f"during loading. Expected: {[_short(v) for v in variables][:50]}")
    values = []
    for i, variable in enumerate(variables):
        where = f"'{path}/vars/{i}' of {label}"
        try:
            link = group.get(str(i), getlink=True)
            dataset = group[str(i)] if isinstance(link, h5py.HardLink) else None
            if not isinstance(dataset, h5py.Dataset) or dataset.is_virtual or dataset.external:
                raise ValueError(f"{where} is missing or is not a plain dataset stored in the file.")
            if dataset.dtype.kind not in "biuf":
                raise ValueError(f"{where} has dtype {dataset.dtype}; weights are numbers.")
            expected, saved = tuple(variable.shape.as_list()), tuple(dataset.shape or ())
            if saved != expected:
                raise _Mismatch(f"The shape of the target variable and the shape of the target value in "
                                f"`variable.assign(value)` must match. variable.shape={expected}, Received: "
                                f"value.shape={saved}. Target variable: {variable.name} ({where})")
            value = np.asarray(dataset[()])
        except (OSError, KeyError, TypeError, RuntimeError) as e:
            raise ValueError(f"{where} cannot be read ({e}).") from None
        values.append(value.astype(variable.dtype.as_numpy_dtype, copy=False))
    return values


_MAX_NAMED_VALUES = 1 << 28     # entries of one named array (an IDF table as long as a 256M-token vocabulary)


def _read_named(group, obj, path, label):
    """{name: array} of the named arrays `obj` lists that `group` holds (None when it lists none), each a
    plain numeric dataset checked before it is read; a layer that needs one the file lacks is a _Mismatch."""
    names = _named_weights(obj)
    if not names:
        return None
    h5py = require_h5py()
    found = {}
    for name in names:
        where = f"'{path}/vars/{name}' of {label}"
        try:
            link = None if group is None else group.get(name, getlink=True)
            if link is None:
                continue
            dataset = group[name] if isinstance(link, h5py.HardLink) else None
            if not isinstance(dataset, h5py.Dataset) or dataset.is_virtual or dataset.external:
                raise ValueError(f"{where} is not a plain dataset stored in the file.")
            if dataset.dtype.kind not in "biuf" or len(dataset.shape or ()) != 1 or \
                    dataset.shape[0] > _MAX_NAMED_VALUES:
                raise ValueError(f"{where} must be a 1-D numeric array of at most {_MAX_NAMED_VALUES} values; "
                                 f"it has dtype {dataset.dtype} and shape {dataset.shape}.")
            found[name] = np.asarray(dataset[()])
        except (OSError, KeyError, TypeError, RuntimeError) as e:
            raise ValueError(f"{where} cannot be read ({e}).") from None
    probe = {}
    obj.save_own_variables(probe)       # what the layer would store now: the names it needs back
    missing = [name for name in names if name in probe and name not in found]
    if missing:
        raise _Mismatch(f"Layer '{obj.name}' expected the array(s) {missing} in '{path}/vars', which the file "
                        f"does not have.")
    return found
