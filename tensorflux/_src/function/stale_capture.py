"""Stale captures: warn when a Python value a trace read as a constant has changed since.

A tf.function reads Python globals, closure variables and `self` attributes while it is traced; their
values are baked into the graph, and later calls keep using them (TensorFlow's semantics, kept here).
Users who change such a value expect the function to see it — the second most asked tf.function
question. At trace time `snapshot()` records, for every global, free variable and (for methods) instance
attribute the function's code loads, the value it has: numbers, strings, bytes and tuples of them by
value, anything else by identity; modules, classes and functions are left out (they are code, not
data). On each call of the concrete function `changed()` compares — a few dict lookups — and the first
time a name differs, a `UserWarning` names it, the value traced, the value now, the line that reads it,
and the remedies. Each name warns once per concrete function and is then no longer checked.

Switch it off with `tf.debugging.disable_stale_capture_warnings()`.
"""
import dis
import functools
import operator
import os
import sys
import types
import warnings

__all__ = ["snapshot", "check", "enable_stale_capture_warnings", "disable_stale_capture_warnings",
           "leaked_tensor_error"]

_ENABLED = [True]
_BY_VALUE = (int, float, complex, bool, str, bytes, type(None))
_CODE_LIKE = (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType, types.MethodType,
              types.BuiltinMethodType, staticmethod, classmethod, property)


def enable_stale_capture_warnings():
    """Warn when a Python value read while tracing a tf.function has changed at a later call (default)."""
    _ENABLED[0] = True


def disable_stale_capture_warnings():
    _ENABLED[0] = False


def _by_value(value):
    if isinstance(value, _BY_VALUE):
        return True
    return isinstance(value, tuple) and len(value) <= 64 and all(_by_value(v) for v in value)


def _tracked(value):
    return not isinstance(value, _CODE_LIKE)


def _code_objects(code):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_objects(const)


@functools.lru_cache(maxsize=512)
def _loads(code):
    """The names `code` (and the code nested in it) loads: globals, free variables, attributes. Cached by
    code object (immutable): a function made afresh from the same code, or traced again for new shapes,
    is not disassembled again."""
    global_names, free_names, attributes = set(), set(), set()
    for inner in _code_objects(code):
        for instruction in dis.get_instructions(inner):
            if instruction.opname in ("LOAD_GLOBAL", "LOAD_NAME"):
                global_names.add(instruction.argval)
            elif instruction.opname in ("LOAD_DEREF", "LOAD_CLASSDEREF"):
                free_names.add(instruction.argval)
            elif instruction.opname in ("LOAD_ATTR", "LOAD_METHOD"):
                attributes.add(instruction.argval)
    return frozenset(global_names), frozenset(free_names), frozenset(attributes)


def _original(python_function):
    """(plain function, bound instance or None) behind a converted / weakly bound / bound function."""
    instance = None
    fn = python_function
    for _ in range(8):
        ref = getattr(fn, "_ref", None)
        if instance is None and callable(ref):
            instance = ref()
        if isinstance(fn, types.MethodType):
            instance = instance if instance is not None else fn.__self__
            fn = fn.__func__
            continue
        inner = getattr(fn, "__wrapped__", None)
        if inner is None or inner is fn:
            break
        fn = inner
    return (fn if isinstance(fn, types.FunctionType) else None), instance


def snapshot(python_function):
    """The guards of a trace: [(kind, where, name, value, by_value)], or None when there is nothing to watch."""
    if not _ENABLED[0]:
        return None
    fn, instance = _original(python_function)
    if fn is None:
        return None
    global_names, free_names, attributes = _loads(fn.__code__)
    guards = []
    namespace = fn.__globals__
    for name in sorted(global_names):
        if name in namespace and _tracked(namespace[name]):
            guards.append(("global", namespace, name, namespace[name], _by_value(namespace[name])))
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    for name in sorted(free_names):
        cell = cells.get(name)
        if cell is None:
            continue
        try:
            value = cell.cell_contents
        except ValueError:          # an empty cell (assigned later)
            continue
        if _tracked(value):
            guards.append(("closure", cell, name, value, _by_value(value)))
    state = getattr(instance, "__dict__", None)
    if state is not None:
        for name in sorted(attributes):
            if name in state and _tracked(state[name]):
                guards.append(("attribute", state, name, state[name], _by_value(state[name])))
    return _Guards(guards, fn) if guards else None


class _Guards:
    """The guarded values of one trace, checked on every call as `guards.current() != guards.values`.

    With one namespace and no cells (the common case) `current` is a `functools.partial` of an
    `operator.itemgetter`: a C-level call, no Python frame; the comparison is a tuple comparison (identity
    first, then `==`). An exception (a deleted name, an ambiguous `==` on arrays) means "look closer"."""

    __slots__ = ("entries", "fn", "current", "values")

    def __init__(self, entries, fn):
        self.entries, self.fn = entries, fn
        by_dict, cells = {}, []
        for kind, where, name, value, _ in entries:
            if kind == "closure":
                cells.append((where, value))
            else:
                by_dict.setdefault(id(where), (where, [], []))
                by_dict[id(where)][1].append(name)
                by_dict[id(where)][2].append(value)
        # itemgetter of one name returns the bare value: ask for it twice to get a tuple, still in C.
        groups = [(operator.itemgetter(*names) if len(names) > 1 else operator.itemgetter(names[0], names[0]),
                   where, tuple(values) if len(values) > 1 else (values[0], values[0]))
                  for where, names, values in by_dict.values()]
        if len(groups) == 1 and not cells:
            getter, where, values = groups[0]
            self.current, self.values = functools.partial(getter, where), values
        else:
            def current():
                return (tuple(getter(where) for getter, where, _ in groups)
                        + tuple(cell.cell_contents for cell, _ in cells))
            self.current = current
            self.values = tuple(values for _, _, values in groups) + tuple(value for _, value in cells)

    def unchanged(self):
        try:
            return self.current() == self.values
        except Exception:
            return False


def _current(kind, where, name):
    if kind == "closure":
        try:
            return where.cell_contents
        except ValueError:
            return _MISSING
    return where.get(name, _MISSING)


_MISSING = object()


def check(guards, function_name):
    """Warns about each guarded value that changed since the trace; returns the guards still watched (None
    when none is left). The common case — nothing changed — is one identity test per guard."""
    entries, fn = guards.entries, guards.fn
    kept = []
    for entry in entries:
        kind, where, name, traced, by_value = entry
        now = _current(kind, where, name)
        if now is traced or (by_value and type(now) is type(traced) and now == traced):
            kept.append(entry)
        elif _ENABLED[0]:
            _warn(function_name, fn, kind, name, traced, now)
    return _Guards(kept, fn) if kept else None


def _line_reading(fn, name):
    for inner in _code_objects(fn.__code__):
        for instruction in dis.get_instructions(inner):
            if instruction.argval == name and instruction.opname.startswith("LOAD") and \
                    instruction.positions is not None and instruction.positions.lineno is not None:
                return f'{inner.co_filename}:{instruction.positions.lineno}'
    return f"{fn.__code__.co_filename}:{fn.__code__.co_firstlineno}"


def _warn(function_name, fn, kind, name, traced, now):
    what = {"global": "global", "closure": "closure variable", "attribute": "attribute self."}[kind]
    label = f"{what}{name}" if kind == "attribute" else f"{what} '{name}'"
    shown_now = "<deleted>" if now is _MISSING else _short(now)
    warnings.warn(
        f"tf.function '{function_name}' read the {label} as a constant when it was traced ({_line_reading(fn, name)}): "
        f"it was {_short(traced)} then and is {shown_now} now, but the traced function keeps using "
        f"{_short(traced)}. Pass the value as an argument of the function, or hold it in a tf.Variable, "
        f"for calls to see changes.", UserWarning, stacklevel=_user_stacklevel())


def _user_stacklevel():
    """The warning points at the user's call of the function, above tensorflux's own frames."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1
    return level


def _short(value):
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def leaked_tensor_error(tensor):
    """TensorFlow's TypeError for calling a function that captured `tensor`, a graph tensor leaked from a
    finished trace (a global or an object attribute set while tracing): the trace captured it, but it has
    no value to run with."""
    graph = tensor.op.graph
    source = getattr(tensor.op, "source", None)
    where = f'File "{source[0]}", line {source[1]}' if source else "<unknown>"
    return TypeError(
        f"{tensor!r} is out of scope and cannot be used here. Use return values, explicit Python locals or "
        f"TensorFlow collections to access it.\nPlease see https://www.tensorflow.org/guide/function"
        f"#all_outputs_of_a_tffunction_must_be_return_values for more information.\n\n{tensor!r} was defined "
        f"here:\n    {where}\n\nThe tensor {tensor!r} cannot be accessed from here, because it was defined in "
        f"FuncGraph(name={getattr(graph, 'name', None)}, id={id(graph)}), which is out of scope.")


API = {"debugging": ["enable_stale_capture_warnings", "disable_stale_capture_warnings"]}
