"""What `tf.saved_model.load` returns: user objects, restored tf.functions and signature functions.

A restored function is a `tf.function` (a PolymorphicFunction) whose cache holds the loaded concrete
functions and which can never trace: a call is matched against the saved signatures (Python values are
converted to tensors when a saved signature expects a tensor there, as TensorFlow does), and a call that
matches none raises TensorFlow's "Could not find matching concrete function" error. Dispatch, the fast
call path, calls from other tf.functions and gradients are the ordinary ones of `Function`.

A signature function (`loaded.signatures["serving_default"]`) takes tensors by keyword (or position)
and returns a dict of named outputs.
"""
from ...state.checkpoint import ObjectGraph
from ...framework import errors, nest
from ...framework.composite import _ComponentsOutput
from ...framework.context import state as _state
from ...framework.tensor import Tensor
from ...function import trace_type as _tt
from ...function.polymorphic import Function
from ...ops import registry
from ...ops.convert import convert_to_tensor
from ...types.spec import TensorSpec

__all__ = ["RestoredFunction", "SignatureFunction", "SignatureMap", "UserObject", "call_flat"]


def call_flat(cf, flat):
    """Runs a concrete function on flat tensors the way a tf.function call would (eagerly, recorded on a
    tape, or as a call op in the graph being traced)."""
    if _state.graph is not None:
        return cf._call_in_graph(flat)
    if _state.tape_active:
        return cf._call_recorded(flat)
    return cf._run([t._value for t in flat])


def _fits(value, ttype):
    """Whether a call argument may be passed where a saved function has `ttype`."""
    if isinstance(ttype, TensorSpec):
        if not isinstance(value, Tensor) and not getattr(value, "_is_variable", False):
            try:
                value = convert_to_tensor(value, dtype_hint=ttype.dtype)
            except (TypeError, ValueError):
                return False
        return value.dtype is ttype.dtype and value.shape.is_subtype_of(ttype.shape)
    if isinstance(ttype, _tt.VariableType):
        return getattr(value, "_is_variable", False) and value.dtype is ttype.dtype and \
            value.shape.is_subtype_of(ttype.shape)
    if isinstance(ttype, _tt.NamedTuple):
        return isinstance(value, tuple) and type(value).__name__ == ttype.cls.__name__ and \
            getattr(type(value), "_fields", None) == ttype.cls._fields and \
            all(_fits(v, c) for v, c in zip(value, ttype.components))
    if isinstance(ttype, (_tt.Tuple, _tt.List)):
        return isinstance(value, (list, tuple)) and len(value) == len(ttype.components) and \
            all(_fits(v, c) for v, c in zip(value, ttype.components))
    if isinstance(ttype, _tt.Dict):
        return isinstance(value, dict) and sorted(value, key=repr) == sorted(ttype.keys, key=repr) and \
            all(_fits(value[k], c) for k, c in zip(ttype.keys, ttype.components))
    try:
        actual = _tt.from_value(value)
    except TypeError:
        return False
    return actual == ttype or actual.is_subtype_of(ttype)


def _describe_arguments(args, kwargs):
    lines = [f"  Positional arguments ({len(args)} total):"] + [f"    * {a!r}" for a in args]
    lines.append(f"  Keyword arguments: {kwargs!r}")
    return "\n".join(lines)


class RestoredFunction(Function):
    """A tf.function loaded from a SavedModel: polymorphic over its saved concrete functions only."""

    def __init__(self, name, signature, concretes, input_signature, keep_alive=()):
        owner = []

        def restored(*args, **kwargs):  # what runs under tf.config.run_functions_eagerly(True)
            cf, flat = owner[0]._concrete_for_call(args, kwargs)
            return call_flat(cf, flat)

        restored.__name__ = restored.__qualname__ = name
        if signature is not None:
            restored.__signature__ = signature
        # A signature with a list/tuple/dict of specs in one argument (a multi-input Keras model's `serve`)
        # is not bound by tf.function's signature binding: calls are matched against the saved concrete
        # functions instead, and the signature is kept for `input_signature`.
        nested = input_signature is not None and not all(isinstance(s, TensorSpec) for s in input_signature)
        super().__init__(restored, name=name, input_signature=None if nested else input_signature,
                         autograph=False)
        if nested:
            self._input_signature = tuple(input_signature)
        self._match_by_fit = nested
        owner.append(self)
        self._cache.maxsize = max(self._cache.maxsize, len(concretes))
        for cf in concretes:
            self._cache.add(tuple(t for _, _, t in cf._params), cf)
        self._keep_alive = keep_alive  # the loaded variables the graphs capture (handles hold them weakly)

    def _concrete_for_call(self, args, kwargs):
        if not len(self._cache):
            raise ValueError("Found zero restored functions for caller function.")
        params = self._bind(args, kwargs)
        if self._input_signature is not None and not self._match_by_fit:
            cf = self._cache.lookup(self._signature_types(params))
        else:
            cf = next((c for c in self._cache.values() if len(c._params) == len(params) and
                       all(_fits(v, t) for (_, _, v), (_, _, t) in zip(params, c._params))), None)
        if cf is None:
            raise ValueError(self._no_match(params))
        flat = []
        for (_, _, v), (_, _, t) in zip(params, cf._params):
            cf._flatten_against(v, t, flat, "")
        return cf, flat

    def _trace(self, params, trace_types, call_types):
        if not len(self._cache):
            raise ValueError("Found zero restored functions for caller function.")
        raise ValueError(self._no_match(params))

    def _no_match(self, params):
        args = [v for _, kind, v in params if kind.name.startswith("POSITIONAL")]
        kwargs = {n: v for n, kind, v in params if not kind.name.startswith("POSITIONAL")}
        options = []
        for i, cf in enumerate(self._cache.values(), 1):
            specs, kw = cf.structured_input_signature
            options.append(f"Option {i}:\n{_describe_arguments(specs, kw)}")
        return (f"Could not find matching concrete function to call loaded from the SavedModel. Got:\n"
                f"{_describe_arguments(args, kwargs)}\n\n Expected these arguments to match one of the following "
                f"{len(options)} option(s):\n\n" + "\n\n".join(options))

    def __repr__(self):
        return f"<tensorflux.saved_model.restored.RestoredFunction object at 0x{id(self):x}>"


class SignatureFunction:
    """A serving signature: named tensor inputs (keyword or positional) → a dict of named outputs."""

    def __init__(self, concrete, input_names, output_keys, keep_alive=()):
        self._concrete = concrete
        self._input_names = list(input_names)
        self._output_keys = list(output_keys)
        self._specs = [TensorSpec(s, d, n) for (d, s), n in zip(concrete._arg_specs, self._input_names)]
        self._keep_alive = keep_alive

    def __call__(self, *args, **kwargs):
        names = self._input_names
        if len(args) > len(names):
            raise TypeError(self._binding_error("too many positional arguments", args, kwargs))
        values = dict(zip(names, args))
        for k in kwargs:  # the order of Python's binding errors
            if k in values:
                raise TypeError(self._binding_error(f"multiple values for argument '{k}'", args, kwargs))
        values.update(kwargs)
        missing = [n for n in names if n not in values]
        if missing:
            raise TypeError(self._binding_error(f"missing a required argument: '{missing[0]}'", args, kwargs))
        unexpected = [k for k in kwargs if k not in names]
        if unexpected:
            raise TypeError(self._binding_error(f"got an unexpected keyword argument '{unexpected[0]}'", args,
                                                kwargs))
        flat = []
        for i, spec in enumerate(self._specs):
            value = values[spec.name]
            t = value if isinstance(value, Tensor) else convert_to_tensor(value, dtype_hint=spec.dtype)
            if t.dtype is not spec.dtype:
                name = self._concrete._inference_name
                raise errors.InvalidArgumentError(
                    None, None, f"cannot compute {name} as input #{i}(zero-based) was expected to be a "
                                f"{registry.dtype_error_name(spec.dtype)} tensor but is a "
                                f"{registry.dtype_error_name(t.dtype)} tensor [Op:{name}]")
            if not spec.shape.is_compatible_with(t.shape):
                raise TypeError(f"Binding inputs to tf.function failed due to `Can not cast "
                                f"{TensorSpec(t.shape, t.dtype)!r} to {TensorSpec(spec.shape, spec.dtype)!r}`.")
            flat.append(t)
        result = call_flat(self._concrete, flat)
        return dict(zip(self._output_keys, nest.flatten(result)))

    def _binding_error(self, reason, args, kwargs):
        return (f"Binding inputs to tf.function failed due to `{reason}`. Received args: {args} and kwargs: "
                f"{kwargs} for signature: {self._signature_text()}.")

    def _signature_text(self):
        inputs = ", ".join(f"{s.name}: {s!r}" for s in self._specs)
        outputs = ", ".join(f"[{k!r}, {v!r}]" for k, v in self.structured_outputs.items())
        return f"(*, {inputs}) -> Dict[{outputs}]"

    @property
    def structured_input_signature(self):
        return (), {s.name: s for s in self._specs}

    @property
    def structured_outputs(self):
        structured = self._concrete.structured_outputs
        if isinstance(structured, dict) and sorted(structured) == sorted(self._output_keys):
            # a composite output (its component tuple) is described by its spec, as TensorFlow does
            return {k: structured[k]._spec if isinstance(structured[k], _ComponentsOutput) else
                    TensorSpec(structured[k].shape, structured[k].dtype, k) for k in self._output_keys}
        flat = self._concrete.outputs
        return {k: TensorSpec(t.shape, t.dtype, k) for k, t in zip(self._output_keys, flat)}

    @property
    def inputs(self):
        return self._concrete.inputs

    @property
    def outputs(self):
        return self._concrete.outputs

    @property
    def graph(self):
        return self._concrete.graph

    @property
    def variables(self):
        return self._concrete.variables

    @property
    def trainable_variables(self):
        return self._concrete.trainable_variables

    @property
    def name(self):
        return self._concrete.name

    def generated_source(self):
        return self._concrete.generated_source()

    def __repr__(self):
        return f"<ConcreteFunction {self._signature_text()} at 0x{id(self):X}>"


class SignatureMap(dict):
    """`loaded.signatures`: signature name → SignatureFunction."""

    def __repr__(self):
        return f"_SignatureMap({dict.__repr__(self)})"


_WALKED_PROPERTIES = ("variables", "trainable_variables", "non_trainable_variables")


class UserObject:
    """A loaded object: its saved attributes (sub-objects, variables, functions, in the saved order),
    `variables` (found by walking them, as TensorFlow's loaded objects hold no list of their own), and
    `__call__` when it saved one."""

    def __init__(self, class_name="UserObject", variable_lists=None):
        object.__setattr__(self, "_saved_class_name", class_name)
        object.__setattr__(self, "_saved_variable_lists", variable_lists or {})

    def _trackable_children(self):
        return [(k, v) for k, v in vars(self).items() if not k.startswith("_saved_") and k != "signatures"]

    def __call__(self, *args, **kwargs):
        fn = vars(self).get("__call__")
        if fn is None:
            raise TypeError("'_UserObject' object is not callable")
        return fn(*args, **kwargs)

    def __getattr__(self, name):
        # Only reached when no saved attribute has this name: a loaded Keras model saved its own lists.
        if name in _WALKED_PROPERTIES:
            saved = self._saved_variable_lists
            if name in saved:
                return saved[name]
            if name == "non_trainable_variables" and "variables" in saved:
                trainable = {id(v) for v in self.trainable_variables}
                return tuple(v for v in saved["variables"] if id(v) not in trainable)
            found = [v for v, _ in ObjectGraph(self).variables()]
            if name == "trainable_variables":
                found = [v for v in found if v.trainable]
            elif name == "non_trainable_variables":
                found = [v for v in found if not v.trainable]
            return tuple(found)
        raise AttributeError(f"'_UserObject' object has no attribute '{name}'")

    def __repr__(self):
        return f"<tensorflux.saved_model.load._UserObject object at 0x{id(self):x}>"
