"""`tf.function`: a PolymorphicFunction that traces one ConcreteFunction per argument type and dispatches.

The hot path: `__call__` builds a cheap key — `(dtype, shape)` per eager tensor and `(type, value)` per
Python scalar — and looks it up in a dict of ready-made callers. Only on a miss are the arguments bound,
their TraceTypes built and the FunctionCache searched by subtyping (most specific match wins); a miss
there traces. Each trace records why it happened (which argument changed from what to what), and
`experimental_explain_retracing()` returns that history as text.

Threads: the dict lookup of the hot path takes no lock (a dict read is atomic and callers are only ever
added or cleared, never half-built). Everything past it — binding, the FunctionCache search, tracing —
runs under the Function's own reentrant lock, so callers that miss at the same time for one signature
trace it once: the first traces, the others wait and then find its ConcreteFunction in the cache.

    @tf.function
    def f(x):
        return x * x
    f(tf.constant(2.0))   # traces once for TensorSpec(shape=(), dtype=tf.float32)
    f(tf.constant(3.0))   # dict hit: runs the generated code
"""
import collections
import functools
import inspect
import logging
import threading
import types as _types
import weakref

import numpy as np

from .. import autograph as _autograph
from ..framework.context import state as _state
from ..framework.graph import FuncGraph
from ..framework.tensor import EagerTensor, Tensor
from ..framework import nest
from ..ops.convert import convert_to_tensor, to_array
from ..types.spec import TensorSpec
from . import jit_compile as _jit
from . import trace_type as _tt
from .concrete import ConcreteFunction
from .function_type import bind
from .tracing import trace_function

__all__ = ["Function", "function", "FunctionCache", "DEFAULT_CACHE_SIZE"]

logger = logging.getLogger("tensorflux")

DEFAULT_CACHE_SIZE = 128      # concrete functions kept per tf.function (least recently used evicted)
RETRACE_WARNING_THRESHOLD = 5  # traces within the last calls that trigger TensorFlow's warning
_FAST_CALLERS_LIMIT = 1024     # argument keys remembered for the dict-lookup call path
_FAST_TYPES = (int, float, bool, str, type(None))
_SINGLETON_MESSAGE = (
    "tf.function only supports singleton tf.Variables created on the first call. Make sure the tf.Variable is "
    "only created once or created outside tf.function. See "
    "https://www.tensorflow.org/guide/function#creating_tfvariables for more information.")


class CallContext(_tt.Literal):
    """The last TraceType of a call made in a replica thread of `strategy.run` (its device): each replica
    gets its own trace, as TensorFlow keys its function cache by the replica's device."""

    __slots__ = ()

    def __eq__(self, other):
        return type(other) is CallContext and self._key == other._key

    __hash__ = _tt.Literal.__hash__


class FunctionCache:
    """ConcreteFunctions keyed by the TraceTypes of their parameters, in trace order; LRU-bounded."""

    def __init__(self, maxsize=DEFAULT_CACHE_SIZE):
        self._entries = {}      # types tuple -> ConcreteFunction, in the order they were traced
        self._last_used = {}    # types tuple -> use counter, for least-recently-used eviction
        self._clock = 0
        self.maxsize = maxsize

    def _touch(self, types):
        self._clock += 1
        self._last_used[types] = self._clock

    def lookup(self, types):
        cf = self._entries.get(types)
        if cf is not None:
            self._touch(types)
            return cf
        matches = [(t, cf) for t, cf in self._entries.items() if _all_subtypes(types, t)]
        if not matches:
            return None
        best_t, best = matches[0]
        for t, cf in matches[1:]:
            if _all_subtypes(t, best_t):
                best_t, best = t, cf
        self._touch(best_t)
        return best

    def add(self, types, cf):
        self._entries[types] = cf
        self._touch(types)
        while len(self._entries) > self.maxsize:
            oldest = min(self._last_used, key=self._last_used.get)
            del self._entries[oldest], self._last_used[oldest]

    def drop_dead(self):
        """Forgets concrete functions whose weakly-held arguments were garbage collected."""
        for t in [t for t in self._entries if not _alive(t)]:
            del self._entries[t], self._last_used[t]

    def __len__(self):
        return len(self._entries)

    def values(self):
        return list(self._entries.values())

    def keys(self):
        return list(self._entries.keys())


def _all_subtypes(a, b):
    return len(a) == len(b) and all(x == y or x.is_subtype_of(y) for x, y in zip(a, b))


def _alive(types):
    for t in types:
        if isinstance(t, _tt.Weakref) and not t.alive:
            return False
        if isinstance(t, (_tt.Tuple, _tt.List, _tt.NamedTuple, _tt.Dict)) and not _alive(t.components):
            return False
    return True


def _fast_key(args, kwargs=None):
    """A hashable key for a call whose arguments are all eager tensors or Python scalars (keyword
    arguments are keyed by name, in sorted order), else None."""
    if kwargs:
        names = tuple(sorted(kwargs))
        positional = _fast_key(args)
        rest = _fast_key([kwargs[k] for k in names])
        return None if positional is None or rest is None else (positional, names, rest)
    key = []
    for a in args:
        t = type(a)
        if t is EagerTensor:
            v = a._value
            key.append((v.dtype, v.shape))
        elif t in _FAST_TYPES:
            key.append((t, a))
        else:
            return None
    return tuple(key)


class Function:
    """The object `@tf.function` returns: callable, traceable, inspectable."""

    def __init__(self, python_function, name=None, input_signature=None, autograph=True,
                 reduce_retracing=False, jit_compile=None, experimental_attributes=None, **_ignored):
        self._python_function = python_function
        self._name = name or getattr(python_function, "__name__", type(python_function).__name__)
        self._autograph = autograph
        self._reduce_retracing = reduce_retracing
        self._jit_compile = jit_compile
        self._signature = _signature(python_function)
        self._input_signature = None
        if input_signature is not None:
            self._input_signature = tuple(input_signature)
        self._cache = FunctionCache()
        self._fast = {}
        self._tracing_count = 0
        self._tracing_depth = 0        # traces of this function under way (recursion nests them)
        self._history = []             # [(call number, reason text)]
        self._calls = 0
        self._recent_traces = collections.deque(maxlen=RETRACE_WARNING_THRESHOLD)
        self._variables_created = False
        self._descriptor_cache = weakref.WeakKeyDictionary()
        self._converted = None
        # Held on the miss path only (cache search, tracing, the per-instance Functions of methods);
        # reentrant because tracing may call this Function again (recursion on another signature).
        self._lock = threading.RLock()
        functools.update_wrapper(self, python_function, updated=())

    # -- calling -------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if _state.run_eagerly:
            return self._python_function(*args, **kwargs)
        key = None
        if _state.graph is None and not _state.tape_active and _state.call_context is None:
            key = _fast_key(args, kwargs)
            if key is not None:
                caller = self._fast.get(key)
                if caller is not None:
                    self._calls += 1
                    return caller(args, kwargs) if kwargs else caller(args)
        return self._call_slow(args, kwargs, key)

    def _call_slow(self, args, kwargs, key):
        self._calls += 1
        cf, flat = self._concrete_for_call(args, kwargs)
        if _state.graph is not None:
            return cf._call_in_graph(flat)
        if _state.tape_active:
            return cf._call_recorded(flat)
        if key is not None:
            self._install_fast_caller(key, args, kwargs, flat, cf)
        return cf._run([t._value for t in flat])

    def _install_fast_caller(self, key, args, kwargs, flat, cf):
        """Remembers, for this key, where each flat tensor comes from, so the next call is one lookup."""
        sources = list(args) + [kwargs[k] for k in sorted(kwargs)]
        positions = []
        for t in flat:
            for i, a in enumerate(sources):
                if a is t:
                    positions.append(i)
                    break
            else:
                return  # a tensor came from a default value or a conversion: no fast path
        run = cf._run
        if kwargs:
            names, idx = tuple(sorted(kwargs)), tuple(positions)

            def caller(args, kwargs):
                values = args + tuple(kwargs[k] for k in names)
                return run([values[i]._value for i in idx])
        elif positions == list(range(len(args))):
            one = len(args) == 1

            def caller(args):
                if cf._direct:      # `_run` has nothing left to do but call the final `_fn` (the hot path)
                    try:
                        outs = cf._fn(args[0]._value) if one else cf._fn(*[a._value for a in args])
                    except Exception as e:
                        raise cf._runtime_error(e) from None
                    return EagerTensor(outs[0])
                return run([a._value for a in args])
        else:
            idx = tuple(positions)

            def caller(args):
                return run([args[i]._value for i in idx])
        if len(self._fast) >= _FAST_CALLERS_LIMIT:
            self._fast.clear()  # e.g. reduce_retracing serving many shapes from one trace
        self._fast[key] = caller

    def _bind(self, args, kwargs):
        params = bind(self._signature, args, kwargs, self._name)
        return [(n, k, _numpy_to_tensor(v)) for n, k, v in params]

    def _concrete_for_call(self, args, kwargs):
        """The ConcreteFunction for a call (tracing if needed) and the flat tensor arguments."""
        params = self._bind(args, kwargs)
        if self._input_signature is not None:
            types = self._signature_types(params)
        else:
            types = tuple(_tt.from_value(v) for _, _, v in params)
        if _state.call_context is not None:
            types += (CallContext(_state.call_context),)
        with self._lock:
            cf = self._cache.lookup(types)
            if cf is None:
                trace_types = types
                if self._reduce_retracing and self._input_signature is None and len(self._cache):
                    trace_types = self._generalise(types)
                cf = self._trace(params, trace_types, types)
        flat = []
        for (_, _, v), (_, _, t) in zip(params, cf._params):
            cf._flatten_against(v, t, flat, "")
        return cf, flat

    def _signature_types(self, params):
        """TraceTypes from input_signature; a call that does not fit raises TensorFlow's TypeError."""
        specs = list(self._input_signature)
        cursor = 0
        types = []

        def fit(value, spec):
            if isinstance(spec, TensorSpec) and not isinstance(value, Tensor):
                try:
                    value = convert_to_tensor(value, dtype_hint=spec.dtype)
                except (TypeError, ValueError):
                    pass
            actual = _tt.from_value(value)
            if not _fits(actual, spec):
                raise TypeError(f"Binding inputs to tf.function failed due to `Can not cast {actual!r} to "
                                f"{spec!r}`. Received args: {tuple(p[2] for p in params)} and kwargs: {{}} for "
                                f"signature: {self._input_signature_text()}.")
            return spec

        for name, kind, value in params:
            if kind is inspect.Parameter.VAR_POSITIONAL:
                parts = [fit(v, specs[cursor + j]) if cursor + j < len(specs) else _tt.from_value(v)
                         for j, v in enumerate(value)]
                cursor += len(value)
                types.append(_tt.Tuple(parts))
            elif cursor < len(specs) and kind is not inspect.Parameter.VAR_KEYWORD:
                types.append(fit(value, specs[cursor]))
                cursor += 1
            else:
                types.append(_tt.from_value(value))
        return tuple(types)

    def _input_signature_text(self):
        """`(x: TensorSpec(...), ...)`: the parameters annotated with their input_signature specs."""
        names = list(self._signature.parameters) if self._signature is not None else []
        specs = list(self._input_signature)
        parts = [f"{n}: {spec!r}" for n, spec in zip(names, specs)]
        parts += [f"args_{i}: {spec!r}" for i, spec in enumerate(specs[len(names):], len(names))]
        return "(" + ", ".join(parts) + ")"

    def _generalise(self, types):
        """reduce_retracing: the most specific common supertype with the traced signatures."""
        result = types
        for previous in self._cache.keys():
            if len(previous) != len(types):
                continue
            merged = []
            for a, b in zip(result, previous):
                s = a if a == b else a.most_specific_common_supertype([b])
                if s is None:
                    merged = None
                    break
                merged.append(s)
            if merged is not None:
                result = tuple(merged)
        return result

    def _trace(self, params, trace_types, call_types):
        reason = self._retrace_reason(call_types)
        outer = _state.graph if isinstance(_state.graph, FuncGraph) else None
        python_function = self._converted_function()
        previous_autograph, _state.autograph = _state.autograph, self._autograph
        self._tracing_depth += 1
        try:
            result = trace_function(python_function, params, trace_types, self._name, outer)
        finally:
            _state.autograph = previous_autograph
            self._tracing_depth -= 1
        if result.created_variables:
            if self._variables_created:
                raise ValueError(_SINGLETON_MESSAGE)
            self._variables_created = True
            # Like TensorFlow: a function that created variables is traced once more to check that
            # later calls would not create new ones (the variables must be singletons).
            again = trace_function(python_function, params, trace_types, self._name, outer)
            if again.created_variables:
                raise ValueError(_SINGLETON_MESSAGE)
            self._tracing_count += 1   # TensorFlow counts that second trace too
        signature_params = [(n, k, t) for (n, k, _), t in zip(params, trace_types)]
        cf = ConcreteFunction(result, python_function, self._signature, self._name, signature_params,
                              jit_compile=self._jit_compile)
        self._cache.drop_dead()
        self._cache.add(trace_types, cf)
        self._fast.clear()
        self._tracing_count += 1
        self._history.append((self._calls, reason))
        if not self._tracing_depth:  # a recursive trace nested in this function's own trace is part of that one
            self._recent_traces.append(self._calls)
            self._maybe_warn(reason)
        return cf

    def _converted_function(self):
        if not self._autograph:
            return self._python_function
        if self._converted is None:
            fn = self._python_function
            if isinstance(fn, _WeakMethod):
                self._converted = _WeakMethod(_autograph.convert(fn._fn), fn._ref())
            else:
                self._converted = _autograph.convert(fn)
        return self._converted

    def _retrace_reason(self, types):
        if not len(self._cache):
            return "first call"
        names = [n for n, _, _ in self._bind_names(types)]
        nearest = None
        for previous in self._cache.keys():
            if len(previous) == len(types):
                diffs = [(names[i] if i < len(names) else f"args[{i}]", p, t)
                         for i, (p, t) in enumerate(zip(previous, types)) if p != t]
                if nearest is None or len(diffs) < len(nearest):
                    nearest = diffs
        if not nearest:
            return "a new argument structure"
        return "; ".join(f"argument `{n}` was {p!r}, now {t!r}" for n, p, t in nearest)

    def _bind_names(self, types):
        if self._signature is None:
            return [(f"args[{i}]", None, None) for i in range(len(types))]
        return [(n, None, None) for n in self._signature.parameters][:len(types)]

    def _maybe_warn(self, reason):
        if len(self._recent_traces) == RETRACE_WARNING_THRESHOLD and \
                self._recent_traces[-1] - self._recent_traces[0] < RETRACE_WARNING_THRESHOLD * 2:
            logger.warning(
                "%d out of the last %d calls to %s triggered tf.function retracing. Tracing is expensive and the "
                "excessive number of tracings could be due to (1) creating @tf.function repeatedly in a loop, "
                "(2) passing tensors with different shapes, (3) passing Python objects instead of tensors. "
                "The latest retrace happened because %s. For (1), define your @tf.function outside of the loop. "
                "For (2), @tf.function has reduce_retracing=True option that can avoid unnecessary retracing. "
                "For (3), pass tensors instead of Python values. `experimental_explain_retracing()` lists every "
                "retrace and its cause.",
                RETRACE_WARNING_THRESHOLD, self._recent_traces[-1] - self._recent_traces[0] + 1,
                self._python_function, reason)

    # -- public API ----------------------------------------------------------------------------
    def get_concrete_function(self, *args, **kwargs):
        """The ConcreteFunction for these arguments (TensorSpecs allowed), tracing if needed."""
        if self._input_signature is not None and not args and not kwargs:
            args = self._input_signature
        params = self._bind(args, kwargs)
        if self._input_signature is not None:
            types = self._signature_types(params)
        else:
            types = tuple(_tt.from_value(v) for _, _, v in params)
        if _state.call_context is not None:
            types += (CallContext(_state.call_context),)
        with self._lock:
            cf = self._cache.lookup(types)
            if cf is None:
                cf = self._trace(params, types, types)
        return cf

    def experimental_get_compiler_ir(self, *args, **kwargs):
        """`get(stage='hlo', device_name=None, platform_name=None)` returning the source of the numba kernel
        the function compiles to for these arguments (TensorSpecs allowed), TensorFlow's HLO text's
        counterpart: tensorflux has one IR, so every stage gives it."""
        if not self._jit_compile:
            raise ValueError("Compiler IR can only be returned for functions marked with 'jit_compile=True'")
        cf = self.get_concrete_function(*args, **kwargs)

        def get(stage="hlo", device_name=None, platform_name=None):
            return _jit.compiler_ir(cf, stage)
        return get

    def experimental_get_tracing_count(self):
        return self._tracing_count

    def experimental_explain_retracing(self):
        """Every trace of this function with the call that caused it and why, as readable text."""
        lines = [f"tf.function `{self._name}`: {self._tracing_count} trace(s)"]
        for n, (call, reason) in enumerate(self._history, 1):
            lines.append(f"  trace {n} (call {call}): {reason}")
        return "\n".join(lines)

    def pretty_printed_concrete_signatures(self, verbose=True):
        return "\n\n".join(cf.pretty_printed_signature(verbose) for cf in self._cache.values())

    def _list_all_concrete_functions(self):
        return self._cache.values()

    def _list_all_concrete_functions_for_serialization(self):
        """The traces to save. A trace made inside a strategy's replica (its key ends with the replica's
        CallContext) is saved as traced outside any replica, as TensorFlow retraces in the save context."""
        out = []
        for types, cf in zip(self._cache.keys(), self._cache.values()):
            if types and type(types[-1]) is CallContext:
                params = [(n, k, t.placeholder_value(None) if type(t) is _tt.Literal else t)
                          for n, k, t in cf._params]
                plain = types[:-1]
                with self._lock:
                    cf = self._cache.lookup(plain) or self._trace(params, plain, plain)
            if cf not in out:
                out.append(cf)
        return out

    @property
    def python_function(self):
        return self._python_function

    @property
    def input_signature(self):
        return self._input_signature

    @property
    def function_spec(self):
        return self._signature

    @property
    def experimental_cache_size(self):
        return self._cache.maxsize

    @experimental_cache_size.setter
    def experimental_cache_size(self, n):
        self._cache.maxsize = int(n)

    def __get__(self, instance, owner):
        """Methods: one Function per instance, so each instance traces separately (as in TensorFlow)."""
        if instance is None:
            return self
        bound = self._descriptor_cache.get(instance)
        if bound is None:
            with self._lock:  # two threads first touching `obj.method` must share one Function
                bound = self._descriptor_cache.get(instance)
                if bound is None:
                    bound = Function(_WeakMethod(self._python_function, instance), name=self._name,
                                     input_signature=self._input_signature, autograph=self._autograph,
                                     reduce_retracing=self._reduce_retracing, jit_compile=self._jit_compile)
                    self._descriptor_cache[instance] = bound
        return bound

    def __repr__(self):
        return f"<tensorflux.function.polymorphic.Function object at 0x{id(self):x}>"


class _WeakMethod:
    """A method bound to an instance through a weak reference (so caches never keep instances alive)."""

    def __init__(self, fn, instance):
        self._fn = fn
        self._ref = weakref.ref(instance)
        self.__name__ = getattr(fn, "__name__", "method")
        self.__wrapped__ = fn
        sig = _signature(fn)
        if sig is not None:
            params = list(sig.parameters.values())[1:]
            self.__signature__ = sig.replace(parameters=params)

    def __call__(self, *args, **kwargs):
        return self._fn(self._ref(), *args, **kwargs)


# (code, ids of defaults) -> inspect.Signature of plain functions: inspect.signature takes ~10 µs, and a closure
# made afresh (a tf.function built in a loop, a model's step function per instance) repeats it for the same
# code. Only functions whose signature is theirs alone are cached (no annotations, keyword-only defaults,
# __wrapped__ or __signature__); bounded, as code can be made at run time.
_SIGNATURES = {}


def _signature(fn):
    key = None
    if type(fn) is _types.FunctionType and not fn.__kwdefaults__ and not fn.__annotations__ and \
            "__wrapped__" not in fn.__dict__ and "__signature__" not in fn.__dict__:
        # defaults by identity (equal values can differ: 1 and 1.0, 0.0 and -0.0); the cached Signature
        # holds them, so their ids cannot be reused while it is cached
        key = (fn.__code__, tuple(map(id, fn.__defaults__ or ())))
        hit = _SIGNATURES.get(key)
        if hit is not None:
            return hit
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    if key is not None and len(_SIGNATURES) < 1024:
        _SIGNATURES[key] = sig
    return sig


def _numpy_to_tensor(value):
    """NumPy arrays and scalars among the arguments (at any depth) are passed as tensors, as in TensorFlow."""
    if isinstance(value, np.ndarray):
        return EagerTensor(_normalise_array(value))
    if isinstance(value, np.generic):
        return EagerTensor(_normalise_array(np.asarray(value)))
    if isinstance(value, (list, tuple, dict)) and any(isinstance(v, (np.ndarray, np.generic))
                                                      for v in nest.flatten(value)):
        return nest.map_structure(_numpy_to_tensor, value)
    return value


def _normalise_array(value):
    return value if value.dtype.kind not in "US" else to_array(value)


def _fits(actual, spec):
    if isinstance(spec, TensorSpec):
        return isinstance(actual, TensorSpec) and actual.dtype is spec.dtype and \
            actual.shape.is_subtype_of(spec.shape)
    return actual == spec or actual.is_subtype_of(spec)


def function(func=None, input_signature=None, autograph=True, jit_compile=None, reduce_retracing=False,
             experimental_implements=None, experimental_autograph_options=None, experimental_attributes=None,
             experimental_relax_shapes=None, experimental_compile=None, experimental_follow_type_hints=None,
             name=None):
    """`tf.function`: compiles a Python function into a callable TensorFlow-style graph."""
    if experimental_relax_shapes:
        reduce_retracing = True
    if experimental_compile is not None:   # TensorFlow's deprecated name for jit_compile
        if jit_compile is not None:
            raise ValueError("Cannot specify both 'experimental_compile' and 'jit_compile'.")
        jit_compile = experimental_compile

    def decorate(f):
        return Function(f, name=name, input_signature=input_signature, autograph=autograph,
                        reduce_retracing=reduce_retracing, jit_compile=jit_compile)

    if func is None:
        return decorate
    return decorate(func)
