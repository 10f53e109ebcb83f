"""The `ag__` that TensorFlow's generated form of a converted function runs against.

`generated_code` writes a function the way TensorFlow's AutoGraph does (`def tf__f(...)` in an
`ag__.FunctionScope`, `ag__.if_stmt(cond, body, orelse, get_state, set_state, names, nouts)`,
`ag__.for_stmt(iter, extra_test, body, get_state, set_state, names, opts)`, `ag__.ld(x)`, ...). When that
form is the code that runs (`generated_module`), its `ag__` is this namespace: TensorFlow's signatures over
the same runtime operators the lean conversion calls, so both forms stage the same graphs. `api` builds
it once with `runtime_namespace(converted_call)`.

    ag__.if_stmt(ag__.ld(x) > 0, if_body, else_body, get_state, set_state, ('y',), 1)
"""
import sys
import types

from ..framework.tensor import Tensor
from ..ops.math import logic as _logic
from . import operators as _operators
from .features import Feature

__all__ = ["runtime_namespace"]


class ConversionOptions:
    """The options TensorFlow writes into each FunctionScope of generated code (recorded, not acted on:
    the conversion already happened when the code was generated)."""

    def __init__(self, recursive=False, user_requested=False, internal_convert_user_code=True, optional_features=()):
        self.recursive = recursive
        self.user_requested = user_requested
        self.internal_convert_user_code = internal_convert_user_code
        if isinstance(optional_features, Feature):
            optional_features = (optional_features,)
        self.optional_features = frozenset(optional_features or ())

    def __repr__(self):
        return (f"ConversionOptions[recursive={self.recursive}, user_requested={self.user_requested}, "
                f"optional_features={sorted(f.name for f in self.optional_features)}]")


STD = ConversionOptions(recursive=True)


class FunctionScope:
    """`with ag__.FunctionScope(name, scope_name, options) as fscope:` around a generated body;
    `fscope.ret(retval_, do_return)` is the function's result (None when no `return` ran)."""

    __slots__ = ("function_name", "name", "options")

    def __init__(self, function_name, scope_name, options):
        self.function_name = function_name
        self.name = scope_name
        self.options = options

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        return False

    @staticmethod
    def ret(value, did_return):
        del did_return   # the value says it: UndefinedReturnValue until a return statement ran
        return None if isinstance(value, _operators.UndefinedReturnValue) else value


def with_function_scope(thunk, scope_name, options):
    """A converted lambda's body, `thunk(scope)`, inside its FunctionScope."""
    with FunctionScope("lambda_", scope_name, options) as scope:
        return thunk(scope)


def autograph_artifact(entity):
    """Marks a function or lambda generated code defines as converted already (its body was converted with
    its parent's), so calling it through converted_call does not convert it again."""
    try:
        entity.__ag_converted__ = True
    except AttributeError:
        pass
    return entity


def _calls_through(lean_converted_call):
    """TensorFlow's `converted_call(f, args, kwargs, caller_fn_scope, options)` over the lean conversion's
    `converted_call(f, args, kwargs)` (which converts user functions, stages range/len/iter of tensors)."""
    def converted_call(f, args, kwargs, caller_fn_scope=None, options=None):
        del options   # the scope's options are the defaults the lean conversion uses too
        if f is super and not args and not kwargs:
            return _super_of_caller(caller_fn_scope)
        return lean_converted_call(f, args, kwargs)
    return converted_call


def _super_of_caller(scope):
    """`super()` called through converted_call: zero-argument super needs the method's own frame, so its
    class and instance are read from the frame of the generated function that opened `scope`."""
    frame = sys._getframe(2)
    while frame is not None and (scope is None or scope.name in frame.f_code.co_freevars or
                                 frame.f_locals.get(scope.name) is not scope):
        frame = frame.f_back   # a branch or loop body reads the scope from its function's frame
    if frame is None:
        raise RuntimeError("super(): no arguments")
    code = frame.f_code
    local = frame.f_locals
    if "__class__" not in local or code.co_argcount + code.co_kwonlyargcount == 0:
        raise RuntimeError("super(): __class__ cell not found")
    return super(local["__class__"], local[code.co_varnames[0]])


def ld(value):
    """A read of a local name. An Undefined value explains itself where it is used, as it does in the lean
    conversion."""
    return value


def ldu(load, name):
    """A read of a name or attribute/item that may not exist yet: Undefined when it does not."""
    try:
        return load()
    except (NameError, AttributeError, KeyError, IndexError):
        return _operators.Undefined(name)


def if_stmt(cond, body, orelse, get_state, set_state, symbol_names, nouts):
    """TensorFlow's `if_stmt`: the first `nouts` symbols are the statement's outputs; the others are only
    read inside it, so each branch starts from, and the statement leaves, their values from before it."""
    names = tuple(symbol_names)
    if nouts < len(names):
        inputs = tuple(get_state())[nouts:]

        def get_outputs():
            return tuple(get_state())[:nouts]

        def set_outputs(values):
            set_state(tuple(values) + inputs)

        _operators.if_stmt(cond, body, orelse, get_outputs, set_outputs, names[:nouts])
    else:
        _operators.if_stmt(cond, body, orelse, get_state, set_state, names)


def while_stmt(test, body, get_state, set_state, symbol_names, opts):
    del opts   # loop options reach the operators through set_loop_options, called in the body
    _operators.while_stmt(test, body, get_state, set_state, tuple(symbol_names))


def for_stmt(iter_, extra_test, body, get_state, set_state, symbol_names, opts):
    del opts   # `iterate_names` only names the loop target for TensorFlow's error messages
    _operators.for_stmt(iter_, extra_test, body, get_state, set_state, tuple(symbol_names))


def eq(a, b):
    """`a == b` with `Feature.EQUALITY_OPERATORS`: elementwise for tensors."""
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        return _logic.equal(a, b)
    return a == b


def not_eq(a, b):
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        return _logic.not_equal(a, b)
    return a != b


def runtime_namespace(lean_converted_call):
    """The `ag__` of generated code, calling functions through `lean_converted_call` (`api` passes its
    own: this module stays below `api`)."""
    return types.SimpleNamespace(
        converted_call=_calls_through(lean_converted_call), **_OPERATORS)


_OPERATORS = dict(
    ConversionOptions=ConversionOptions, STD=STD, Feature=Feature, FunctionScope=FunctionScope,
    with_function_scope=with_function_scope, autograph_artifact=autograph_artifact, ld=ld, ldu=ldu,
    if_stmt=if_stmt, while_stmt=while_stmt, for_stmt=for_stmt, eq=eq, not_eq=not_eq,
    Undefined=_operators.Undefined, UndefinedReturnValue=_operators.UndefinedReturnValue,
    and_=_operators.and_, or_=_operators.or_, not_=_operators.not_, if_exp=_operators.if_exp,
    list_append=_operators.list_append, set_loop_options=_operators.set_loop_options)
