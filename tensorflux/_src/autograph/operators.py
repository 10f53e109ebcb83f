"""AutoGraph's runtime operators: converted code calls these, and they decide at run time.

`if_stmt`, `while_stmt` and `for_stmt` stage graph control flow (`If`/`While`) when their condition or
iterable is a tensor of the graph being built; otherwise they run the original Python. State travels
through `get_state()`/`set_state(values)` over the symbols the statement assigns (local, `global` and
`nonlocal` names, and compound symbols such as `obj.b`, `lst[0]`, `d['k']`):
- a tensor, a Python number, or a nest (tuple, namedtuple, list, dict) of them is a branch output / loop
  variable, rebuilt with its structure afterwards;
- a Python value that is the same after both branches stays a Python value;
- in loops, the converter's liveness facts decide the rest, as in TensorFlow: a name first bound in the
  body and read after the loop is defined automatically from the body's first iteration (with a run-time
  check that the loop ran); one bound and read only inside the body is a per-iteration temporary; one
  that nothing reads again keeps its value from before the loop;
- a name bound in a single branch of a tensor `if` becomes `Undefined`, which explains itself when used.
"""
import os
import sys

import numpy as np

from ..framework import nest
from ..framework.context import control_dependencies as _control_dependencies
from ..framework.graph import SymbolicTensor
from ..framework.tensor import Tensor
from ..framework.context import state as _state
from ..ops import array as _array
from ..ops.array import indexing as _indexing
from ..ops.assertion import Assert as _assert
from ..ops.control_flow import cond_while as _cf
from ..ops.shapes.creators import zeros as _zeros
from ..ops.shapes.shape_ops import identity as _identity
from ..ops.math import arith as _math
from ..ops.convert import convert_to_tensor
from ..types import dtypes as _dt
from ..types.shape import TensorShape
from .dataset_loop import DatasetElements, staged_by_reduce
from .unroll_check import PythonLoopChecker

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

__all__ = ["Undefined", "UndefinedReturnValue", "ld", "ld_compound", "set_compound", "if_stmt", "while_stmt",
           "for_stmt", "and_", "or_", "not_", "if_exp", "set_loop_options", "list_append", "ret"]


class Undefined:
    """A name with no value on some path; any use raises an error naming it and why."""

    __slots__ = ("symbol_name", "reason", "site")

    def __init__(self, symbol_name, reason=None, site=None):
        self.symbol_name = symbol_name
        self.reason = reason
        self.site = site   # (code, line) of the user's statement that left it undefined, when known

    def _fail(self, *args, **kwargs):
        raise ValueError(self.reason or
                         f"'{self.symbol_name}' is used before it has a value: it must be defined before the "
                         f"loop or conditional that assigns it, or on every path through it.")

    __tf_tensor__ = _fail
    __bool__ = __call__ = __iter__ = __len__ = __getitem__ = _fail
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _fail
    __lt__ = __le__ = __gt__ = __ge__ = __neg__ = __index__ = __int__ = __float__ = _fail

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        self._fail()

    def __repr__(self):
        return f"<Undefined {self.symbol_name}>"


class UndefinedReturnValue:
    """The return value before any `return` ran (a function that falls off its end returns None)."""


def ret(value, did_return):
    """The result of a function whose returns were lowered to `do_return`/`retval_`: None when no return
    statement ran (it fell off its end). It takes the flag as TensorFlow's `fscope.ret` does: the flag is
    then read at the end, so it is live after every `if` that sets it (an output of those tensor `if`s)."""
    del did_return
    return None if isinstance(value, UndefinedReturnValue) else value


def ld(scope, name):
    """The value of local `name`, or Undefined when it is not bound yet."""
    try:
        return scope[name]
    except KeyError:
        return Undefined(name)


def ld_compound(root, path, text):
    """The value of `root().a[0]...` (a compound symbol), or Undefined when some step of it is missing."""
    try:
        value = root()
        for kind, key in path:
            if isinstance(value, Undefined):
                return Undefined(text)
            value = getattr(value, key) if kind == "." else value[key]
        return value
    except (NameError, AttributeError, KeyError, IndexError, TypeError):
        return Undefined(text)


def set_compound(root, path, value):
    """Stores `value` at `root().a[0]...`; an Undefined value removes what a branch or loop body left there."""
    target = root()
    for kind, key in path[:-1]:
        target = getattr(target, key) if kind == "." else target[key]
    kind, key = path[-1]
    if isinstance(value, Undefined):
        try:
            delattr(target, key) if kind == "." else target.__delitem__(key)
        except (AttributeError, KeyError, IndexError, TypeError):
            pass
    elif kind == ".":
        setattr(target, key, value)
    else:
        target[key] = value


class _Symbol(str):
    """A state name with what the converter knows of its use: read after the loop, read inside it.
    Plain `str` names (loops staged by other modules) count as both."""

    live_out = read = True


def _with_liveness(names, live_out, read):
    if live_out is None:
        return names
    out = []
    for name in names:
        symbol = _Symbol(name)
        if name.isidentifier():  # compound symbols (`obj.b`, `lst[0]`) always travel with the loop
            symbol.live_out = name in live_out
            symbol.read = name in read
        out.append(symbol)
    return tuple(out)


def _is_graph_tensor(x):
    return isinstance(x, SymbolicTensor) and _state.graph is not None


def _tensorlike(x):
    if x is None or isinstance(x, (Undefined, UndefinedReturnValue, str)):
        return False
    return isinstance(x, (Tensor, bool, int, float, _cf.CompositeFlow)) or hasattr(x, "__tf_tensor__")


def _carriable(x):
    """True for a tensor-like value or a nest (tuple, namedtuple, list, dict) of them: a cond output or loop
    variable. An empty nest has nothing to carry and stays a Python value."""
    if not nest.is_nested(x):
        return _tensorlike(x)
    leaves = nest.flatten(x)
    return bool(leaves) and all(_tensorlike(leaf) for leaf in leaves)


def _flat(x):
    return _cf._flatten(x)


def _rebuild(template, tensors):
    return _cf._pack(template, list(tensors))


def _structure_mismatch(a, b):
    """nest's explanation of why `a` and `b` differ in structure, or None when they agree."""
    try:
        nest.assert_same_structure(a, b)
    except (TypeError, ValueError) as e:
        return str(e)
    return None


# -- if ----------------------------------------------------------------------------------------------
def if_stmt(cond, body, orelse, get_state, set_state, names, inputs_only=()):
    """`inputs_only`: symbols only read inside the statement (not after it); a tensor `if` leaves them as
    they were, as TensorFlow does, instead of making them outputs."""
    if _is_graph_tensor(cond):
        _tf_if(cond, body, orelse, get_state, set_state, names, inputs_only)
    elif cond:
        body()
    else:
        orelse()


def _tf_if(cond, body, orelse, get_state, set_state, names, inputs_only=()):
    if cond.dtype is not _dt.bool:
        cond = _math.cast(cond, _dt.bool)
    init = get_state()

    def branch(fn):
        def run():
            set_state(init)
            fn()
            return get_state()
        return run

    then_graph, then_state = _cf.trace_branch(branch(body), "cond_true")
    else_graph, else_state = _cf.trace_branch(branch(orelse), "cond_false")
    final = list(init)
    staged = []
    for i, (name, a, b) in enumerate(zip(names, then_state, else_state)):
        if name in inputs_only:
            continue
        if isinstance(a, UndefinedReturnValue) != isinstance(b, UndefinedReturnValue):
            missing = "else" if isinstance(b, UndefinedReturnValue) else "main"
            error = ValueError(f"A tensor-dependent `if` returns in only one branch: the {missing} branch must "
                               f"also have a return statement.")
            error.ag_return_in_one_branch = True  # inside a tensor loop, the loop's own error explains it
            raise error
        elif isinstance(a, (Undefined, UndefinedReturnValue)) or isinstance(b, (Undefined, UndefinedReturnValue)):
            missing = "else" if isinstance(b, (Undefined, UndefinedReturnValue)) else "main"
            final[i] = Undefined(name, f"'{name}' must also be initialized in the {missing} branch", _user_site())
        elif _check_branch_outputs(name, a, b):
            staged.append(i)
        else:   # nothing to carry (an empty list): the Python value stays
            final[i] = a
    # TensorFlow's outputs: every carried symbol, Python numbers and flags included (`do_return` is an
    # output even when both branches set it to True), in the order of the symbols' names.
    staged.sort(key=lambda i: names[i])
    _python_leaves_as_tensors(else_graph, [(then_state[i], else_state[i]) for i in staged])
    then_flat, else_flat = [], []
    for i in staged:
        ta = [_cf.graph_tensor(then_graph, t) for t in _flat(then_state[i])]
        tb = [_cf.graph_tensor(else_graph, t) for t in _flat(else_state[i])]
        for x, y in zip(ta, tb):
            if x.dtype is not y.dtype:
                raise TypeError(f"'{names[i]}' has dtype {x.dtype.name} in the main branch, but dtype "
                                f"{y.dtype.name} in the else branch")
        then_flat += ta
        else_flat += tb
    if staged:
        outs = list(_cf.build_if(cond, then_graph, then_flat, else_graph, else_flat))
    else:  # only side effects (prints, assigns) differ between the branches
        _cf.build_if(cond, then_graph, [], else_graph, [])
        outs = []
    pos = 0
    for i in staged:
        n = len(_flat(then_state[i]))
        final[i] = _rebuild(then_state[i], outs[pos:pos + n])
        pos += n
    set_state(tuple(final))


_NOT_A_TENSOR = ("To be compatible with tf.function, Python functions must return zero or more Tensors or "
                 "ExtensionTypes or None values; in compilation of <function _tf_if_stmt.<locals>.aug_body at "
                 "{address}>, found return value of type {type}, which is not a Tensor or ExtensionType.")
_CONVERTIBLE = (bool, int, float, complex, str, bytes, np.ndarray, np.generic)


def _check_branch_outputs(name, a, b):
    """TensorFlow's checks of one symbol a tensor `if` carries out, in its order: each branch's values must
    convert to tensors (a function or an object cannot), the branches must have the same structure, and no
    value may be None; Python values are staged as tensors like the rest. False when there is nothing to
    carry (an empty nest)."""
    for value in (a, b):
        for leaf in (_flat(value) if nest.is_nested(value) else [value]):
            if leaf is not None and not (isinstance(leaf, _CONVERTIBLE) or _tensorlike(leaf)):
                raise TypeError(_NOT_A_TENSOR.format(address=hex(id(value)), type=type(leaf).__name__))
    mismatch = _structure_mismatch(a, b)
    if mismatch is not None:
        raise TypeError(f"'{name}' must have the same nested structure in the main and else branches:\n\n"
                        f"{mismatch}")
    leaves = list(zip(_flat(a), _flat(b))) if nest.is_nested(a) else [(a, b)]
    for x, y in leaves:
        if x is None or y is None:
            raise ValueError(f"'{name}' is None at the end of the {'main' if x is None else 'else'} branch.")
    return bool(leaves)


def _python_leaves_as_tensors(graph, pairs):
    """TensorFlow checks the branches' dtypes from inside the else branch, converting each Python number of
    either branch to a tensor there: those constants stay in the else branch's graph (unused), and its
    GraphDef shows them."""
    previous = _state.graph
    _state.graph = graph
    try:
        for a, b in pairs:
            for x, y in zip(_flat(a), _flat(b)):
                for leaf in (x, y):
                    if isinstance(leaf, (bool, int, float, str, np.ndarray)):
                        convert_to_tensor(leaf)
    finally:
        _state.graph = previous


def _user_site():
    """(code, line) of the innermost frame outside tensorflux: the converted statement being staged."""
    f = sys._getframe(2)
    while f is not None and f.f_code.co_filename.startswith(_PACKAGE_DIR):
        f = f.f_back
    return (f.f_code, f.f_lineno) if f is not None else None


# -- while -------------------------------------------------------------------------------------------
_CONDITION_BECAME_TENSOR = (
    "The condition of while loop started as non-Tensor, then changed to Tensor. This may happen either because "
    "variables changed type, or when a break or return statement inside the loop depends on a Tensor condition. "
    "In both cases, changing to a TF loop should remove the error.\nSee https://github.com/tensorflow/tensorflow/"
    "blob/master/tensorflow/python/autograph/g3doc/reference/limitations.md#consistency-of-control-flow-types for "
    "more info.")
_TENSOR_BREAK_IN_PYTHON_FOR = (
    "break and return statements which depend on a TF condition are not supported in Python for loops. Did you "
    "intend to make it a TF loop?\nSee https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/"
    "autograph/g3doc/reference/limitations.md#consistency-of-control-flow-types for more info.")


def while_stmt(test, body, get_state, set_state, names, extra_test=None, live_out=None, read=None):
    names = _with_liveness(names, live_out, read)
    keep = extra_test() if extra_test is not None else True
    if not _is_graph_tensor(keep) and not keep:
        return
    cond = test()
    if _is_graph_tensor(cond) or _is_graph_tensor(keep):
        return _tf_while(test, body, get_state, set_state, names, extra_test)
    # A Python loop stays one: a condition that turns into a tensor part-way cannot be staged (the
    # iterations already unrolled would be lost), so it fails as in TensorFlow instead of looping forever.
    checker = PythonLoopChecker() if _state.graph is not None else None
    while True:
        if not cond:
            return
        if checker is None:
            body()
        else:
            checker.before_iteration()
            body()
            checker.after_iteration()
        if extra_test is not None:
            keep = extra_test()
            if _is_graph_tensor(keep):
                raise NotImplementedError(_CONDITION_BECAME_TENSOR)
            if not keep:
                return
        cond = test()
        if _is_graph_tensor(cond):
            raise NotImplementedError(_CONDITION_BECAME_TENSOR)


def _loop_condition(test, extra_test):
    if test is None:   # a dataset's reduction: only the extra test (a break) ends it early
        return extra_test()
    keep = test()
    if extra_test is not None:
        keep = and_(extra_test, lambda: keep)
    return keep


def _role(name, value):
    """How a loop treats one state symbol, as TensorFlow does after its liveness analysis:
    'carried' (a loop variable), 'null' (first bound in the body and read after the loop: defined
    automatically from the body's first iteration), 'temporary' (bound and read only inside the body), or
    'fixed' (a Python value, or one nothing reads again: it keeps its value from before the loop)."""
    live_out = getattr(name, "live_out", True)
    if isinstance(value, Undefined):
        return "null" if live_out else "temporary"
    if _carriable(value) and (live_out or getattr(name, "read", True)):
        return "carried"
    return "fixed"


def _placeholder_value(like):
    """A stand-in initial value of the type of `like` (a value the body gives a null loop variable), and
    the shape invariant it needs: zeros, with 0 for dimensions the body leaves unknown."""
    if isinstance(like, bool):
        return False
    if isinstance(like, (int, float)):
        return type(like)(0)
    if isinstance(like, Tensor):
        dims = like.shape.as_list() if like.shape.rank is not None else []
        return _zeros([0 if d is None else d for d in dims], dtype=like.dtype)
    raise TypeError(f"a {type(like).__name__} cannot be defined automatically")


def _define_nulls(body, get_state, set_state, names, init, nulls, load_trial):
    """Traces one throwaway iteration to learn the type of each null loop variable; returns their
    stand-in initial values. Fails as TensorFlow does when the body reads one before binding it."""
    def trial():
        load_trial()
        body()
        return get_state()

    listed = ", ".join(f"'{names[i]}'" for i in nulls)
    try:
        _, state = _cf.trace_branch(trial, "while_body_trial")
        values = {}
        for i in nulls:
            value = state[i]
            if isinstance(value, (Undefined, UndefinedReturnValue)) or value is None or not _carriable(value):
                raise ValueError(f"'{names[i]}' is {'None' if value is None else 'not a tensor'} after the "
                                 f"first iteration")
            values[i] = (nest.map_structure(_placeholder_value, value), value)
    except (UnboundLocalError, TypeError, ValueError, KeyError) as e:
        raise ValueError(f"{listed} must be defined before the loop\nNote: AutoGraph tried to define it "
                         f"automatically, but ran into a {type(e).__name__}: {e}") from None
    finally:
        set_state(tuple(init))
    return values


def _tf_while(test, body, get_state, set_state, names, extra_test, relax_shapes=False, elements=None):
    """Stages a While loop over the tensor-like state. `relax_shapes` (dataset loops, like TensorFlow's
    `Dataset.reduce`) generalises a loop variable's shape when the body changes it, instead of failing.
    `elements` (a `DatasetElements`): the body also takes a dataset element, there is no `test` (the
    loop ends with the dataset, or when `extra_test` fails) and the op is the dataset's ReduceDataset."""
    init = list(get_state())
    defaults = {}
    roles = [_role(n, v) for n, v in zip(names, init)]
    nulls = [i for i, r in enumerate(roles) if r == "null"]
    temporaries = [i for i, r in enumerate(roles) if r in ("temporary", "null")]

    def load_trial():
        state = list(init)
        for i in temporaries:
            state[i] = Undefined(names[i])
        set_state(tuple(state))

    if nulls and elements is not None:   # TensorFlow defines nothing automatically for a dataset's reduction
        raise ValueError(f"'{names[nulls[0]]}' must be defined before the loop")
    if nulls:
        defaults = _define_nulls(body, get_state, set_state, names, init, nulls, load_trial)
        for i, (value, _) in defaults.items():
            init[i] = value
            roles[i] = "carried"
        temporaries = [i for i in temporaries if i not in defaults]
    carried = [i for i, r in enumerate(roles) if r == "carried"]
    init_flat, specs, counts, owners = [], [], [], []
    for i in carried:
        parts = [t if isinstance(t, Tensor) else convert_to_tensor(t) for t in _flat(init[i])]
        # A stand-in's shape invariant is the body's shape, whose unknown dimensions the zeros cannot have.
        shapes = [getattr(t, "shape", TensorShape([])) for t in _flat(defaults[i][1])] if i in nulls else \
            [t.shape for t in parts]
        counts.append(len(parts))
        for j, (t, shape) in enumerate(zip(parts, shapes)):
            init_flat.append(t)
            owners.append(names[i])
            specs.append(_cf.LoopVar(t.dtype, shape, names[i] if len(parts) == 1 else f"{names[i]}_{j}"))
    if nulls:  # whether the body ran at least once: the automatically defined values are stand-ins
        init_flat.append(convert_to_tensor(False))
        specs.append(_cf.LoopVar(_dt.bool, TensorShape([]), "loop_iterated"))

    templates = dict(enumerate(init))

    def load(flat):
        state = list(init)
        pos = 0
        for i, n in zip(carried, counts):
            state[i] = _rebuild(templates[i], list(flat[pos:pos + n]))
            pos += n
        for i in temporaries:
            state[i] = Undefined(names[i])
        set_state(tuple(state))

    def cond_fn(*flat):
        load(flat)
        keep = _loop_condition(test, extra_test)
        return keep

    def body_fn(*flat):
        load(flat)
        if elements is not None:
            elements.bind(flat[len(specs):])
        try:
            body()
        except ValueError as e:
            if not getattr(e, "ag_return_in_one_branch", False):
                raise
            state = None
        else:
            state = get_state()
        if state is None or any(isinstance(v, UndefinedReturnValue) and not isinstance(w, UndefinedReturnValue)
                                for v, w in zip(init, state)):
            raise NotImplementedError(
                "a return statement cannot be placed inside this TensorFlow loop; this may happen if a return "
                "statement depends on a static Python condition such as a hyperparameter")
        out = []
        for i, n in zip(carried, counts):
            value = state[i]
            if isinstance(value, Undefined) or value is None:
                raise ValueError(f"'{names[i]}' must be defined on every path through the loop body; it is a "
                                 f"loop variable that the body leaves undefined.")
            parts = _flat(value) if _carriable(value) else [value]
            if len(parts) != n or (nest.is_nested(templates[i]) and _structure_mismatch(templates[i], value)):
                mismatch = _structure_mismatch(templates[i], value) or "The number of tensors differs."
                raise TypeError(f"'{names[i]}' does not have the same nested structure after one iteration."
                                f"\n\n{mismatch}")
            if nest.is_nested(value) or isinstance(value, _cf.CompositeFlow):
                templates[i] = value
            out.extend(parts)
        if nulls:
            out.append(convert_to_tensor(True))
        return out

    def trace_body():
        _LOOP_OPTIONS.append({})
        try:
            graph, out = _cf.trace_branch(body_fn, "while_body", specs + (elements.specs if elements else []))
        finally:
            options = _LOOP_OPTIONS.pop()
        return graph, [_cf.graph_tensor(graph, t) for t in out], options

    body_graph, body_out, options = trace_body()
    for _ in range(3 if relax_shapes else 0):
        relaxed = [s if o.shape.is_subtype_of(s.shape) else
                   _cf.LoopVar(s.dtype, s.shape.most_specific_compatible_shape(o.shape), s.name)
                   for s, o in zip(specs, body_out)]
        if all(r is s for r, s in zip(relaxed, specs)):
            break
        specs[:] = relaxed
        body_graph, body_out, options = trace_body()
    if options.get("shape_invariants"):
        placeholders = body_graph.inputs[:len(specs)]
        for var, shape in options["shape_invariants"]:
            for k, p in enumerate(placeholders):
                if p is var:
                    specs[k] = _cf.LoopVar(specs[k].dtype, TensorShape(shape), specs[k].name)
        body_graph, body_out, _ = trace_body()
    if elements is not None and extra_test is None:
        cond_graph = keep = None
    else:
        cond_graph, keep = _cf.trace_branch(cond_fn, "while_cond", specs)
        keep = _cf.graph_tensor(cond_graph, keep)
    if keep is not None and keep.dtype is not _dt.bool:
        raise TypeError(f"The loop condition must be a boolean tensor, got {keep.dtype.name}")
    for spec, out, owner in zip(specs, body_out, owners):
        if out.dtype is not spec.dtype:
            raise TypeError(f"'{owner}' has dtype {spec.dtype.name} before the loop, but dtype {out.dtype.name} "
                            f"after one iteration")
        if not out.shape.is_subtype_of(spec.shape):
            raise ValueError(f"'{owner}' has shape {spec.shape} before the loop, but shape {out.shape} after one "
                             f"iteration. Use tf.autograph.experimental.set_loop_options to set shape invariants.")
    maximum = options.get("maximum_iterations")
    if maximum is not None:
        maximum = convert_to_tensor(maximum, dtype=_dt.int32)
    build = _cf.build_while if elements is None else elements.build
    outs = list(build(init_flat, specs, cond_graph, keep, body_graph, body_out, maximum))
    if nulls:
        message = "loop must iterate at least once to initialize " + ", ".join(names[i] for i in nulls)
        check = _assert(outs.pop(), [message])
        with _control_dependencies([check]):
            outs = [_identity(t) for t in outs]
    load(outs)


_LOOP_OPTIONS = []   # one dict per tensor loop whose body is being traced


def set_loop_options(parallel_iterations=None, swap_memory=None, maximum_iterations=None, shape_invariants=None):
    """Called inside a loop body: shape invariants `[(var, shape)]` and an iteration limit for that loop."""
    if not _LOOP_OPTIONS:
        return  # a Python loop: nothing to stage
    options = _LOOP_OPTIONS[-1]
    if shape_invariants is not None:
        options["shape_invariants"] = list(shape_invariants)
    if maximum_iterations is not None:
        options["maximum_iterations"] = maximum_iterations


# -- for ---------------------------------------------------------------------------------------------
def for_stmt(iter_, extra_test, body, get_state, set_state, names, live_out=None, read=None):
    names = _with_liveness(names, live_out, read)
    if isinstance(iter_, Tensor) and _state.graph is not None:
        return _tf_for_tensor(iter_, extra_test, body, get_state, set_state, names)
    if _state.graph is not None and staged_by_reduce(iter_):
        elements = DatasetElements(iter_)
        return _tf_while(None, lambda: body(elements.element()), get_state, set_state, names, extra_test,
                         relax_shapes=True, elements=elements)
    iterate = getattr(iter_, "_ag_for_stmt", None)
    if iterate is not None:  # iterators and other objects that stage their own loops
        return iterate(extra_test, body, get_state, set_state, names)
    checker = PythonLoopChecker() if _state.graph is not None else None
    for item in iter_:
        if extra_test is not None:
            keep = extra_test()
            if _is_graph_tensor(keep):
                raise NotImplementedError(_TENSOR_BREAK_IN_PYTHON_FOR)
            if not keep:
                break
        if checker is None:
            body(item)
        else:
            checker.before_iteration()
            body(item)
            checker.after_iteration()


def _tf_for_tensor(iter_, extra_test, body, get_state, set_state, names):
    if iter_.shape.rank == 0:
        raise TypeError("Cannot iterate over a scalar tensor.")
    range_op = iter_.op if isinstance(iter_, SymbolicTensor) and iter_.op.type == "Range" and \
        iter_.op.graph is _state.graph else None
    if range_op is not None:
        _tf_for_range(range_op, extra_test, body, get_state, set_state, names)
        return
    n = iter_.shape[0]
    trips = n if n is not None else _array.shape(iter_)[0]
    box = {"i": convert_to_tensor(0)}

    def get_full():
        return tuple(get_state()) + (box["i"],)

    def set_full(values):
        set_state(tuple(values[:-1]))
        box["i"] = values[-1]

    def test():
        return _math.less(box["i"], trips)

    def step():
        body(_indexing.gather(iter_, box["i"]))
        box["i"] = _math.add(box["i"], 1)

    _tf_while(test, step, get_full, set_full, tuple(names) + ("itr_count",), extra_test)


def _tf_for_range(range_op, extra_test, body, get_state, set_state, names):
    """`for i in tf.range(start, limit, delta)`, as TensorFlow stages it: the range is never materialised;
    the loop carries the iterate itself (first, ahead of the user's symbols), adds `delta` after each
    body and tests it against `limit`."""
    start, limit, delta = range_op.inputs[:3]
    # TensorFlow computes the trip count for XLA's loop bound; outside XLA its ops stay in the graph unused
    # (the runtime prunes them), so graphs list TensorFlow's ops.
    _range_length(start, limit, delta)
    box = {"iterate": start}

    def get_full():
        return (box["iterate"],) + tuple(get_state())

    def set_full(values):
        box["iterate"] = values[0]
        set_state(tuple(values[1:]))

    known_delta = _constant_scalar(delta)

    def test():
        iterate = box["iterate"]
        if known_delta is not None:
            return _math.less(iterate, limit) if known_delta >= 0 else _math.greater(iterate, limit)
        return _math.logical_or(_math.logical_and(_math.greater_equal(delta, 0), _math.less(iterate, limit)),
                                _math.logical_and(_math.less(delta, 0), _math.greater(iterate, limit)))

    def step():
        body(box["iterate"])
        box["iterate"] = _math.add(box["iterate"], delta, name="add")  # TF: `iterate + delta`

    _tf_while(test, step, get_full, set_full, ("<internal iterate>",) + tuple(names), extra_test)


def _range_length(start, limit, delta):
    """max(ceil((limit - start) / delta), 0) with TensorFlow's ops (its zeros are `zeros_like` constants)."""
    span = limit - start
    whole = span // delta
    length = whole + _math.cast(_math.not_equal(span % delta, _zeros(whole.shape, whole.dtype, name="zeros_like")),
                                span.dtype)
    return _math.maximum(length, _zeros(length.shape, length.dtype, name="zeros_like"))


def _constant_scalar(t):
    """The value of a Const scalar tensor of the graph, else None."""
    op = getattr(t, "op", None)
    if op is None or op.type != "Const":
        return None
    value = op.attrs.get("value")
    try:
        return value.item() if value is not None and value.size == 1 else None
    except AttributeError:
        return None


# -- expressions -------------------------------------------------------------------------------------
def and_(a, b):
    left = a()
    if _is_graph_tensor(left):
        return _cf.cond(left, lambda: _as_bool_tensor(b()), lambda: left)
    return left and b()


def or_(a, b):
    left = a()
    if _is_graph_tensor(left):
        return _cf.cond(left, lambda: left, lambda: _as_bool_tensor(b()))
    return left or b()


def not_(x):
    if isinstance(x, Tensor):  # eager tensors too, as in TensorFlow: `not t` stays a tensor
        return _math.logical_not(x)
    return not x


def if_exp(cond, if_true, if_false, expr_repr=""):
    """`a if cond else b`; `expr_repr` (the source of `cond`) names the value in error messages."""
    if not _is_graph_tensor(cond):
        return if_true() if cond else if_false()
    # Staged like an `if` statement assigning one value, so both branches are checked the same way.
    box = [Undefined(expr_repr)]

    def get_state():
        return (box[0],)

    def set_state(values):
        box[0] = values[0]

    def body():
        box[0] = if_true()

    def orelse():
        box[0] = if_false()

    _tf_if(cond, body, orelse, get_state, set_state, (expr_repr,))
    return box[0]


def _as_bool_tensor(x):
    return convert_to_tensor(x, dtype=_dt.bool) if not isinstance(x, Tensor) else x


# -- lists (Feature.LISTS) ---------------------------------------------------------------------------
def list_append(target, element):
    """`target.append(element)` as a value: a TensorArray gets `element` written at its end (a new
    TensorArray is returned, as TensorArray writes are functional); other lists append in place."""
    if isinstance(target, _cf.CompositeFlow) and hasattr(target, "write") and hasattr(target, "size"):
        return target.write(target.size(), element)
    target.append(element)
    return target
