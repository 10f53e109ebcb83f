"""The execution context: eager or building a graph, plus the few global switches of TensorFlow.

Invariant: `state.graph` is None exactly when ops execute eagerly. This single attribute is what the
hot path of `ops.registry.apply()` looks at; everything else here is off the hot path.
"""
import contextlib
import threading

__all__ = ["state", "executing_eagerly", "run_functions_eagerly", "functions_run_eagerly", "init_scope",
           "name_scope", "graph_mode", "control_dependencies", "set_optimizer_jit", "get_optimizer_jit"]


_RUN_EAGERLY = [False]   # tf.config.run_functions_eagerly is process-wide, as in TensorFlow


class _State(threading.local):
    """Per-thread execution state (each thread starts eager, with no tapes), as TensorFlow's context."""

    def __init__(self):
        self.graph = None          # the Graph ops are added to; None means eager execution
        self.tape_active = False   # True while some GradientTape of this thread is recording
        self.tapes = []            # this thread's GradientTapes, in the order they were entered
        self.name_stack = ""       # current eager name scope (graphs keep their own)
        self.variable_observers = []  # callables told about every new tf.Variable (tracing counts them)
        self.autograph = False     # True while tracing a tf.function with autograph=True
        self.call_context = None   # the replica device of a strategy.run thread: part of tf.function's trace key

    @property
    def run_eagerly(self):
        return _RUN_EAGERLY[0]

    @run_eagerly.setter
    def run_eagerly(self, value):
        _RUN_EAGERLY[0] = bool(value)


state = _State()


def executing_eagerly():
    """True outside any graph being built (also inside tf.functions run eagerly)."""
    return state.graph is None


def run_functions_eagerly(run_eagerly):
    """Makes every tf.function run its Python function directly (for debugging)."""
    state.run_eagerly = bool(run_eagerly)


def functions_run_eagerly():
    return state.run_eagerly


@contextlib.contextmanager
def graph_mode(graph):
    """Makes `graph` the graph ops are added to, restoring the previous mode on exit."""
    previous = state.graph
    state.graph = graph
    try:
        yield graph
    finally:
        state.graph = previous


@contextlib.contextmanager
def init_scope():
    """Lifts code out of every graph being built, to the outermost (eager) context."""
    previous = state.graph
    outer = previous
    while outer is not None and getattr(outer, "outer_graph", None) is not None:
        outer = outer.outer_graph
    # FuncGraphs always nest inside eager execution; the outermost context is eager.
    state.graph = None if outer is None or getattr(outer, "is_func_graph", False) else outer
    try:
        yield
    finally:
        state.graph = previous


class name_scope:
    """`tf.name_scope(name)`: prefixes the names of ops created inside it."""

    def __init__(self, name, default_name=None, values=None):
        self._name = name if name is not None else default_name
        self._exit = None

    @property
    def name(self):
        return self._name

    def __enter__(self):
        g = state.graph
        if g is not None:
            cm = g.name_scope(self._name)
            scope = cm.__enter__()
            self._exit = cm.__exit__
            return scope
        old = state.name_stack
        scope = (old + self._name + "/") if self._name else ""
        state.name_stack = scope
        self._exit = lambda *a: setattr(state, "name_stack", old)
        return scope

    def __exit__(self, *exc):
        self._exit(*exc)
        return False


def control_dependencies(control_inputs):
    """`tf.control_dependencies`: in a graph, ops created inside run after `control_inputs`; eagerly,
    ops already run in program order, so it does nothing."""
    if state.graph is None:
        return contextlib.nullcontext()
    return state.graph.control_dependencies(control_inputs)


_OPTIMIZER_JIT = [False]   # tf.config.optimizer.set_jit: process-wide, as in TensorFlow


def set_optimizer_jit(enabled):
    """`tf.config.optimizer.set_jit`: True or "autoclustering" turns automatic compilation on (hot-function
    tiering from the first call, runtime/tiering.py), anything else off."""
    _OPTIMIZER_JIT[0] = enabled is True or enabled == "autoclustering"


def get_optimizer_jit():
    """`tf.config.optimizer.get_jit`: "autoclustering" when on, "" when off."""
    return "autoclustering" if _OPTIMIZER_JIT[0] else ""


_AUTOGRAPH_CONVERTER = [None]   # set by the autograph room when it loads (it sits above ops)


def set_autograph_converter(convert):
    _AUTOGRAPH_CONVERTER[0] = convert


def autograph_callable(fn):
    """`fn` converted by AutoGraph when a tf.function with autograph is being traced, as TensorFlow does
    for the functions given to cond, while_loop, map_fn and friends; `fn` itself otherwise."""
    convert = _AUTOGRAPH_CONVERTER[0]
    if convert is None or state.graph is None or not state.autograph:
        return fn
    return convert(fn)
