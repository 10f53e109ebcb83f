"""`tf.Module`: a named container that finds its variables and submodules by walking its attributes.

The walk is TensorFlow's: attributes in sorted name order, each flattened with `nest` (lists, tuples,
dicts in sorted key order); every object is reported once; all matches directly held by a module come
before those of its submodules, which are then walked depth first in the order they were found.

A module's name scope is fixed when it is created (`outer/my_module/`), and `with module.name_scope:`
re-enters exactly that scope, so variables created there are named `outer/my_module/v:0`.
"""
import functools
import re
import weakref

from ..framework import nest as _nest
from ..framework.context import state as _state
from .variables import Variable

__all__ = ["Module", "defer_restoration"]

_VALID_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_CAMEL_BOUNDARY = re.compile(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))")


def _camel_to_snake(name):
    return _CAMEL_BOUNDARY.sub(r"_\1", name).lower()


def _current_scope():
    """The enclosing name scope as a prefix ending in "/" (or "")."""
    graph = _state.graph
    if graph is None:
        return _state.name_stack
    get_name_scope = getattr(graph, "get_name_scope", None)
    scope = get_name_scope() if get_name_scope is not None else ""
    return scope + "/" if scope else ""


class _ModuleNameScope:
    """The absolute name scope of a module, re-entered as is (not nested in the current scope)."""

    def __init__(self, scope):
        self._scope = scope
        self._exits = []

    @property
    def name(self):
        return self._scope

    def __enter__(self):
        graph = _state.graph
        if graph is not None:
            cm = graph.name_scope(self._scope)
            scope = cm.__enter__()
            self._exits.append(cm.__exit__)
            return scope
        previous = _state.name_stack
        _state.name_stack = self._scope

        def restore(*exc):
            _state.name_stack = previous
        self._exits.append(restore)
        return self._scope

    def __exit__(self, *exc):
        self._exits.pop()(*exc)
        return False


# -- deferred restoration ----------------------------------------------------------------------------
# A checkpoint restored into a module that does not have some saved child yet (a layer that creates its
# variables on its first call) leaves a callback here; when the module's attribute of that name is set, the
# callback gives the new object its saved values (TensorFlow's deferred restoration). Keyed by id(module)
# with a weak reference, so a module that dies takes its entries with it.
_deferred_restorations = {}     # id(module) -> (weakref to module, {attribute name: [callback, ...]})


def defer_restoration(module, name, callback):
    """Calls `callback(value)` when `module.<name>` is set, until the callback returns True (it took the
    value: the saved values are given once, as TensorFlow consumes a deferred restoration)."""
    key = id(module)
    entry = _deferred_restorations.get(key)
    if entry is None or entry[0]() is not module:
        ref = weakref.ref(module, lambda _, key=key: _deferred_restorations.pop(key, None))
        entry = _deferred_restorations[key] = (ref, {})
    entry[1].setdefault(name, []).append(callback)


def _restore_deferred(module, name, value):
    ref, callbacks = _deferred_restorations[id(module)]
    if ref() is not module:
        return
    waiting = callbacks.get(name)
    if waiting:
        waiting[:] = [callback for callback in waiting if not callback(value)]
        if not waiting:
            del callbacks[name]
            if not callbacks:
                _deferred_restorations.pop(id(module), None)


class Module:
    """Base class of named containers of variables and other modules (`tf.Module`)."""

    # Attributes never walked (TensorFlow's bookkeeping; subclasses may extend).
    _TF_MODULE_IGNORED_PROPERTIES = frozenset()

    def __init__(self, name=None):
        if name is None:
            name = _camel_to_snake(type(self).__name__)
        elif not _VALID_NAME.match(name):
            raise ValueError(f"'{name}' is not a valid module name. Module names must be valid Python "
                             f"identifiers (e.g. a valid class name).")
        self._name = name
        self._scope_name = _current_scope() + name + "/"
        self._name_scope = _ModuleNameScope(self._scope_name)

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        if _deferred_restorations and id(self) in _deferred_restorations:   # an empty dict costs one test
            _restore_deferred(self, name, value)

    @property
    def name(self):
        return self._name

    @property
    def name_scope(self):
        return self._name_scope

    @property
    def variables(self):
        """Every variable held by this module and its submodules (a tuple, each variable once)."""
        return tuple(self._flatten(predicate=_is_variable))

    @property
    def trainable_variables(self):
        return tuple(self._flatten(predicate=_is_trainable_variable))

    @property
    def non_trainable_variables(self):
        return tuple(self._flatten(predicate=_is_non_trainable_variable))

    @property
    def submodules(self):
        """Every module reachable from this one (not including itself), each once."""
        return tuple(self._flatten(predicate=_is_module))

    def _flatten(self, recursive=True, predicate=None, attribute_traversal_key=None, with_path=False,
                 expand_composites=False):
        """Yields the objects (or `(path, object)` pairs) held by this module that satisfy `predicate`."""
        return _walk(self, recursive, predicate or (lambda _: True), attribute_traversal_key, with_path,
                     (), {id(self)}, set())

    @classmethod
    def with_name_scope(cls, method):
        """Decorator: runs a method inside the module's name scope."""
        @functools.wraps(method)
        def in_scope(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)
        return in_scope


def _is_variable(obj):
    return isinstance(obj, Variable)


def _is_trainable_variable(obj):
    return isinstance(obj, Variable) and obj.trainable


def _is_non_trainable_variable(obj):
    return isinstance(obj, Variable) and not obj.trainable


def _is_module(obj):
    return isinstance(obj, Module)


def _walk(module, recursive, predicate, key, with_path, path, seen, active):
    attributes = vars(module)
    ignored = getattr(module, "_TF_MODULE_IGNORED_PROPERTIES", ())
    submodules = []
    for name in sorted(attributes, key=key):
        if name in ignored:
            continue
        try:
            leaves = _nest.flatten_with_paths(attributes[name])
        except TypeError as cause:
            raise ValueError(f"Error processing property {name!r} of {attributes[name]!r}") from cause
        for leaf_path, leaf in leaves:
            leaf_path = path + (name,) + leaf_path
            if not with_path:
                if id(leaf) in seen:
                    continue
                seen.add(id(leaf))
            if predicate(leaf):
                yield (leaf_path, leaf) if with_path else leaf
            if recursive and isinstance(leaf, Module) and id(leaf) not in active:
                submodules.append((leaf_path, leaf))
    active.add(id(module))  # a module reachable from itself is not walked again
    for sub_path, submodule in submodules:
        yield from _walk(submodule, recursive, predicate, key, with_path, sub_path, seen, active)
    active.discard(id(module))


API = {"": ["Module"]}
