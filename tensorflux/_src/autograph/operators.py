"""AutoGraph's runtime operators: converted code calls these, and they decide at run time.

`if_stmt`, `while_stmt` and `for_stmt` stage graph control flow (`If`/`While`) when their condition or
iterable is a tensor of the graph being built; otherwise they run the original Python. State travels
through `get_state()`/`set_state(values)` over the names the statement assigns:
- a tensor (or a Python number that becomes one) is a branch output / loop variable;
- a Python value that is the same after both branches stays a Python value;
- a name first bound inside a loop is a loop-local temporary; one bound in a single branch of a tensor
  `if` becomes `Undefined`, which explains itself when used.
"""
from ..framework.graph import SymbolicTensor
from ..framework.tensor import Tensor
from ..framework.context import state as _state
from ..ops import array as _array
from ..ops.array import indexing as _indexing
from ..ops.control_flow import cond_while as _cf
from ..ops.math import arith as _math
from ..ops.convert import convert_to_tensor
from ..types import dtypes as _dt
from ..types.shape import TensorShape

__all__ = ["Undefined", "UndefinedReturnValue", "ld", "if_stmt", "while_stmt", "for_stmt", "and_", "or_", "not_",
           "if_exp", "set_loop_options"]


class Undefined:
    """A name with no value on some path; any use raises an error naming it and why."""

    __slots__ = ("symbol_name", "reason")

    def __init__(self, symbol_name, reason=None):
        self.symbol_name = symbol_name
        self.reason = reason

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


def ld(scope, name):
    """The value of local `name`, or Undefined when it is not bound yet."""
    try:
        return scope[name]
    except KeyError:
        return Undefined(name)


def _is_graph_tensor(x):
    return isinstance(x, SymbolicTensor) and _state.graph is not None


def _tensorlike(x):
    if x is None or isinstance(x, (Undefined, UndefinedReturnValue, str)):
        return False
    return isinstance(x, (Tensor, bool, int, float, _cf.CompositeFlow)) or hasattr(x, "__tf_tensor__")


def _flat(x):
    if isinstance(x, _cf.CompositeFlow):
        return list(x._flow_tensors())
    return [x]


def _rebuild(template, tensors):
    if isinstance(template, _cf.CompositeFlow):
        return template._with_flow(tensors)
    return tensors[0]


# -- if ----------------------------------------------------------------------------------------------
def if_stmt(cond, body, orelse, get_state, set_state, names):
    if _is_graph_tensor(cond):
        _tf_if(cond, body, orelse, get_state, set_state, names)
    elif cond:
        body()
    else:
        orelse()


def _tf_if(cond, body, orelse, get_state, set_state, names):
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
        if a is b:
            final[i] = a
        elif isinstance(a, (Undefined, UndefinedReturnValue)) or isinstance(b, (Undefined, UndefinedReturnValue)):
            missing = "else" if isinstance(b, (Undefined, UndefinedReturnValue)) else "if"
            final[i] = Undefined(name, f"'{name}' must also be initialized in the {missing} branch: it is used "
                                       f"after a tensor-dependent `if` that assigns it in only one branch.")
        elif _tensorlike(a) and _tensorlike(b):
            staged.append(i)
        elif _same_python_value(a, b):
            final[i] = a
        else:
            raise ValueError(f"'{name}' must have the same type in both branches of a tensor-dependent `if`; got "
                             f"{type(a).__name__} in the if branch and {type(b).__name__} in the else branch.")
    then_flat, else_flat = [], []
    for i in staged:
        ta = [_cf.graph_tensor(then_graph, t) for t in _flat(then_state[i])]
        tb = [_cf.graph_tensor(else_graph, t) for t in _flat(else_state[i])]
        for x, y in zip(ta, tb):
            if x.dtype is not y.dtype:
                raise TypeError(f"'{names[i]}' has dtype {x.dtype.name} in the if branch, but dtype {y.dtype.name} "
                                f"in the else branch")
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


def _same_python_value(a, b):
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False


# -- while -------------------------------------------------------------------------------------------
def while_stmt(test, body, get_state, set_state, names, extra_test=None):
    keep = extra_test() if extra_test is not None else True
    if not _is_graph_tensor(keep) and not keep:
        return
    cond = test()
    if _is_graph_tensor(cond) or _is_graph_tensor(keep):
        return _tf_while(test, body, get_state, set_state, names, extra_test)
    while True:
        if not cond:
            return
        body()
        if extra_test is not None:
            keep = extra_test()
            if _is_graph_tensor(keep):
                return _tf_while(test, body, get_state, set_state, names, extra_test)
            if not keep:
                return
        cond = test()
        if _is_graph_tensor(cond):
            return _tf_while(test, body, get_state, set_state, names, extra_test)


def _loop_condition(test, extra_test):
    keep = test()
    if extra_test is not None:
        keep = and_(extra_test, lambda: keep)
    return keep


def _tf_while(test, body, get_state, set_state, names, extra_test, relax_shapes=False):
    """Stages a While loop over the tensor-like state. `relax_shapes` (dataset loops, like TensorFlow's
    `Dataset.reduce`) generalises a loop variable's shape when the body changes it, instead of failing."""
    init = list(get_state())
    carried = [i for i, v in enumerate(init) if _tensorlike(v)]
    temporaries = [i for i, v in enumerate(init) if isinstance(v, Undefined)]
    init_flat, specs, counts = [], [], []
    for i in carried:
        parts = [t if isinstance(t, Tensor) else convert_to_tensor(t) for t in _flat(init[i])]
        counts.append(len(parts))
        for j, t in enumerate(parts):
            init_flat.append(t)
            specs.append(_cf.LoopVar(t.dtype, t.shape, names[i] if len(parts) == 1 else f"{names[i]}_{j}"))

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
        body()
        state = get_state()
        for i in carried:
            if isinstance(state[i], _cf.CompositeFlow):
                templates[i] = state[i]
        out = []
        for i, n in zip(carried, counts):
            value = state[i]
            if isinstance(value, Undefined) or value is None:
                raise ValueError(f"'{names[i]}' must be defined on every path through the loop body; it is a "
                                 f"loop variable that the body leaves undefined.")
            out.extend(_flat(value))
        return out

    def trace_body():
        _LOOP_OPTIONS.append({})
        try:
            graph, out = _cf.trace_branch(body_fn, "while_body", specs)
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
    cond_graph, keep = _cf.trace_branch(cond_fn, "while_cond", specs)
    keep = _cf.graph_tensor(cond_graph, keep)
    if keep.dtype is not _dt.bool:
        raise TypeError(f"The loop condition must be a boolean tensor, got {keep.dtype.name}")
    for spec, out in zip(specs, body_out):
        if out.dtype is not spec.dtype:
            raise TypeError(f"Loop variable '{spec.name}' has dtype {spec.dtype.name} before the loop, but dtype "
                            f"{out.dtype.name} after one iteration. A loop variable must keep its dtype; cast it "
                            f"before the loop (e.g. tf.cast(x, {out.dtype!r})).")
        if not out.shape.is_subtype_of(spec.shape):
            raise ValueError(f"Loop variable '{spec.name}' has shape {spec.shape} before the loop, but shape "
                             f"{out.shape} after one iteration. To allow the shape to vary across iterations, use "
                             f"tf.autograph.experimental.set_loop_options(shape_invariants=[({spec.name}, "
                             f"tf.TensorShape(...))]) inside the loop, or tf.while_loop's `shape_invariants`.")
    maximum = options.get("maximum_iterations")
    if maximum is not None:
        maximum = convert_to_tensor(maximum, dtype=_dt.int32)
    outs = _cf.build_while(init_flat, specs, cond_graph, keep, body_graph, body_out, maximum)
    load(list(outs))


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
def for_stmt(iter_, extra_test, body, get_state, set_state, names):
    if isinstance(iter_, Tensor) and _state.graph is not None:
        return _tf_for_tensor(iter_, extra_test, body, get_state, set_state, names)
    iterate = getattr(iter_, "_ag_for_stmt", None)
    if iterate is not None:  # datasets and other objects that stage their own loops
        return iterate(extra_test, body, get_state, set_state, names)
    for item in iter_:
        if extra_test is not None:
            keep = extra_test()
            if _is_graph_tensor(keep):
                raise NotImplementedError("break/return that depends on a tensor inside a Python `for` loop is not "
                                          "supported; iterate over a tensor (e.g. tf.range) instead.")
            if not keep:
                break
        body(item)


def _tf_for_tensor(iter_, extra_test, body, get_state, set_state, names):
    if iter_.shape.rank == 0:
        raise TypeError("Cannot iterate over a scalar tensor.")
    range_op = iter_.op if isinstance(iter_, SymbolicTensor) and iter_.op.type == "Range" and \
        iter_.op.graph is _state.graph else None
    if range_op is not None:
        # `for i in tf.range(start, limit, delta)`: count the trips arithmetically (as TensorFlow does) and
        # carry `i` itself, instead of indexing into the materialised range every iteration.
        start, limit, delta = range_op.inputs[:3]
        span = limit - start
        trips = span // delta + _math.cast(_math.not_equal(span % delta, 0), span.dtype)
        trips = _math.maximum(trips, 0)
        box = {"i": convert_to_tensor(0, dtype=trips.dtype), "value": start}

        def item():
            return box["value"]

        def advance():
            box["value"] = _math.add(box["value"], delta)
    else:
        n = iter_.shape[0]
        trips = n if n is not None else _array.shape(iter_)[0]
        box = {"i": convert_to_tensor(0), "value": None}

        def item():
            return _indexing.gather(iter_, box["i"])

        def advance():
            pass

    carried = ("value",) if range_op is not None else ()
    state_names = tuple(names) + ("itr_count",) + tuple(f"itr_{k}" for k in carried)

    def get_full():
        return tuple(get_state()) + (box["i"],) + tuple(box[k] for k in carried)

    def set_full(values):
        n_user = len(values) - 1 - len(carried)
        set_state(tuple(values[:n_user]))
        box["i"] = values[n_user]
        for k, v in zip(carried, values[n_user + 1:]):
            box[k] = v

    def test():
        return _math.less(box["i"], trips)

    def step():
        body(item())
        advance()
        box["i"] = _math.add(box["i"], 1)

    _tf_while(test, step, get_full, set_full, state_names, extra_test)


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
    if isinstance(x, Tensor) and _state.graph is not None:
        return _math.logical_not(x)
    return not x


def if_exp(cond, if_true, if_false, expr_repr=""):
    if _is_graph_tensor(cond):
        return _cf.cond(cond, if_true, if_false)
    return if_true() if cond else if_false()


def _as_bool_tensor(x):
    return convert_to_tensor(x, dtype=_dt.bool) if not isinstance(x, Tensor) else x
