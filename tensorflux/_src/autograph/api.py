"""AutoGraph's entry points: converting a function's source, and calling functions from converted code.

`convert(fn)` parses the function's source, lowers break/continue/return, rewrites control flow and
expressions into calls of `operators`, and compiles the result into a function with the original
globals and closure cells (so free variables stay live). Results are cached per code object, so each
function is converted once per process. `to_graph`, and a function that calls a debugger, run TensorFlow's
generated form instead (the code `to_code` prints, from a temporary file: `generated_module`), so
`inspect` and the debugger show what TensorFlow shows.

    @tf.function
    def f(x):
        if tf.reduce_sum(x) > 0:   # becomes ag__.if_stmt(...): a `cond` when the test is a tensor
            x = x * 2
        return x
    print(tf.autograph.to_code(f.python_function))
"""
import ast
import functools
import inspect
import logging
import os
import textwrap
import types

from ..framework.context import state as _state
from ..framework.graph import SymbolicTensor
from ..ops import array as _array
from ..ops.array import creation as _creation
from . import operators
from . import verbosity as _verbosity
from .errors import UnsupportedLanguageElementError
from .features import feature_names
from .transformers.control_flow import ControlFlowConverter
from .transformers.expressions import ExpressionConverter, calls_debugger, warn_set_trace
from .transformers.lambdas import lambda_candidates
from .transformers.lists import ListAppendConverter
from .transformers.lowering import FlagNames, lower_function
from .transformers.names import declared_names, loop_liveness

__all__ = ["convert", "converted_call", "to_code", "to_graph", "do_not_convert", "ConversionError"]

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_STDLIB = os.path.dirname(os.__file__)   # the standard library's directory (sysconfig costs ~5 ms to import)
_NEVER_CONVERT_MODULES = ("tensorflux", "tensorflow", "numpy", "builtins", "functools", "itertools", "collections",
                          "math", "typing", "abc", "contextlib", "logging", "re", "ml_dtypes")


class ConversionError(Exception):
    """AutoGraph could not convert a function. `silent` ones (no source, a generator) are not reported:
    TensorFlow runs those functions as they are without a warning."""

    def __init__(self, message, silent=False):
        super().__init__(message)
        self.silent = silent
        self.reported = False


_LOGGER = logging.getLogger("tensorflow")


def _report_not_converted(fn, error):
    message = (f"AutoGraph could not transform {fn!r} and will run it as-is.\nCause: {error}\nTo silence this "
               f"warning, decorate the function with @tf.autograph.experimental.do_not_convert")
    _LOGGER.warning(message)
    if _verbosity.echo_to_stdout():
        print("WARNING: " + message)


class _AgNamespace(types.SimpleNamespace):
    """What converted code sees as `ag__`."""


ag__ = _AgNamespace(**{name: getattr(operators, name) for name in operators.__all__})

_CACHE = {}       # code object -> (converted code object, source text) | ConversionError
# Converted code compiled from TensorFlow's generated form (a temporary module, see `generated_module`):
# made into functions with a closure cell for its `ag__` instead of the lean conversion's global.
_GENERATED = set()
# Generated module file -> (the user's file, {generated line: user line}), for error messages.
_SOURCE_MAPS = {}
_GENERATED_AG = []   # the cell holding generated code's `ag__` (generated_runtime), made on first use
_ORIGINS = {}     # converted code object (and its inner functions' code) -> (function name, converted code)
# Lambdas compiled inside converted code: their bodies were converted with their parent, so the functions
# they make are already converted when cond/while_loop/map_fn receive them.
_CONVERTED_LAMBDAS = set()


def do_not_convert(func=None):
    """Marks a function so AutoGraph calls it unconverted."""
    if func is None:
        return do_not_convert
    try:
        func.__ag_do_not_convert__ = True
    except AttributeError:
        pass
    return func


def _is_library(fn):
    """True for code AutoGraph leaves alone: tensorflux, NumPy, the standard library, installed packages."""
    module = getattr(fn, "__module__", None) or ""
    if module.split(".")[0] in _NEVER_CONVERT_MODULES:
        return True
    code = getattr(fn, "__code__", None)
    if code is None:
        return True
    filename = code.co_filename
    if filename.startswith(_PACKAGE_DIR) or filename.startswith("<") or "site-packages" in filename:
        return True
    return bool(_STDLIB) and filename.startswith(_STDLIB)


def _should_convert(fn):
    if getattr(fn, "__ag_do_not_convert__", False):
        return False
    if inspect.ismethod(fn):
        return _should_convert(fn.__func__)
    if not inspect.isfunction(fn):
        return False
    return not _is_library(fn)


def _lambda_node(fn):
    """The `def` equivalent of the lambda `fn`, isolated from the parsed source of its whole file, so a
    lambda spanning several lines is converted whole. A lambda that cannot be told apart from another of
    the same signature starting on the same line is left unconverted, as TensorFlow does."""
    code = fn.__code__
    try:
        candidates = lambda_candidates(fn)
    except (OSError, TypeError) as e:
        raise ConversionError(f"the source code of {fn.__qualname__} is not available ({e})", silent=True) from None
    except SyntaxError as e:
        raise ConversionError(f"could not parse the source code of {fn!r}: {e}") from None
    if not candidates:
        raise ConversionError(f"could not parse the source code of {fn!r}: no matching lambda was found on line "
                              f"{code.co_firstlineno}")
    if len(candidates) > 1:
        matches = "\n\n".join(f"Match {i}:\n{ast.unparse(n)}" for i, n in enumerate(candidates))
        raise ConversionError(
            f"could not parse the source code of {fn!r}: found multiple definitions with identical signatures at "
            f"the location. This error may be avoided by defining each lambda on a single line and with unique "
            f"argument names. The matching definitions were:\n{matches}\n")
    lam = candidates[0]
    node = ast.FunctionDef(name="__ag_lambda", args=lam.args, body=[ast.Return(value=lam.body)],
                           decorator_list=[], returns=None, type_params=[])
    ast.copy_location(node, lam)
    return node, lam.lineno


def _transform(fn, features=(), generated=False):
    """(converted code object of `fn`, converted source) — or raise ConversionError. `generated`: run
    TensorFlow's generated form of the def or lambda (from a temporary file) instead of the lean conversion,
    as a function that calls a debugger also does."""
    if inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn):
        # As in TensorFlow: a generator runs unconverted, so loops over it stay Python loops over its items.
        raise ConversionError(f"{fn.__qualname__} is a generator function", silent=True)
    if fn.__name__ == "<lambda>":  # a lambda holds one expression: convert and/or/not, `a if c else b`, calls
        if generated:
            try:
                return _generated_form(fn, features, user_requested=True)
            except (OSError, TypeError, SyntaxError, LookupError):
                pass   # a lambda that cannot be told apart from another: the lean conversion reports it
        node, first_line = _lambda_node(fn)
        node.body = [ExpressionConverter().visit(s) for s in node.body]
        return _compile_converted(fn, node, ast.unparse(ast.fix_missing_locations(node)), first_line)
    try:
        source = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError) as e:
        raise ConversionError(f"the source code of {fn.__qualname__} is not available ({e})", silent=True) from None
    try:
        module = ast.parse(source)
    except SyntaxError as e:
        raise ConversionError(f"could not parse the source of {fn.__qualname__}: {e}") from None
    node = module.body[0]
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise ConversionError(f"{fn.__qualname__} is not defined by a def statement")
    debugger = calls_debugger(node)
    if generated or debugger:
        # A debugger stopped in converted code steps through the code TensorFlow shows (the generated
        # form), as in TensorFlow; the user asked to see it when they asked for to_graph.
        if debugger:
            warn_set_trace()
        try:
            return _generated_form(fn, features, user_requested=generated)
        except UnsupportedLanguageElementError:
            if generated:   # to_graph raises it, as TensorFlow does
                raise
        except (OSError, TypeError, SyntaxError, LookupError):
            pass
        # a debugger in a construct TensorFlow does not convert (e.g. for/else): the lean conversion runs
    node.decorator_list = []
    _mark_nested_functions(node.body)
    if "LISTS" in features or "ALL" in features:
        node.body = [ListAppendConverter().visit(s) for s in node.body]
    lower_function(node, FlagNames())
    node.body = [ExpressionConverter().visit(s) for s in node.body]
    converter = ControlFlowConverter(*declared_names(node), liveness=loop_liveness(node))
    node.body = _flatten_stmts([converter.visit(s) for s in node.body])
    converted_source = ast.unparse(ast.fix_missing_locations(node))
    return _compile_converted(fn, node, converted_source, 1)


def _generated_form(fn, features, user_requested):
    """(code of TensorFlow's generated form of `fn`, its module text). The function `to_graph` returns
    (`user_requested`) is, as in TensorFlow, an artifact that callers run as it is: errors raised in it
    show its generated frames as unconverted user code (`tf__f  **`, `if_body`), not as `f  *`."""
    from .generated_module import generated_function_code   # loads only when this form is asked for
    code, text, lines = generated_function_code(fn, features)
    _GENERATED.add(code)
    _CONVERTED_LAMBDAS.update(_nested_lambdas(code))
    if not user_requested:
        _ORIGINS[code] = (fn.__name__, code)
        for nested in _nested_code(code):
            _ORIGINS.setdefault(nested, (fn.__name__, code))
        _SOURCE_MAPS[code.co_filename] = (fn.__code__.co_filename, lines)
    return code, text


def _mark_nested_functions(stmts):
    """Local functions the user defines are converted where they are defined (as TensorFlow marks them
    converted code), so one returned to the caller or handed to library code is converted too."""
    stack = list(stmts)
    while stack:
        s = stack.pop()
        if isinstance(s, ast.FunctionDef):
            s.decorator_list.append(ast.Attribute(value=ast.Name(id="ag__", ctx=ast.Load()), attr="convert_nested",
                                                  ctx=ast.Load()))
            continue   # its own local functions are marked when it is converted
        if isinstance(s, (ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        stack.extend(c for c in ast.iter_child_nodes(s) if isinstance(c, (ast.stmt, ast.excepthandler)))


def _compile_converted(fn, node, converted_source, first_line):
    """Compiles the converted def `node` with `fn`'s globals, closure and source positions."""
    # The converted def is compiled inside a factory whose parameters are the original free variables,
    # so the new code refers to them as closure cells (rebound to the original cells in `convert`). The
    # def gets a private name there: a function calling itself by name must still find the global.
    freevars = fn.__code__.co_freevars
    node.name = "__ag_converted"
    factory = ast.FunctionDef(
        name="__ag_factory", args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=v) for v in freevars],
                                                vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                                                defaults=[]),
        body=[node, ast.Return(value=ast.Name(id=node.name, ctx=ast.Load()))], decorator_list=[], returns=None,
        type_params=[])
    wrapper = ast.Module(body=[factory], type_ignores=[])
    ast.fix_missing_locations(wrapper)
    # Converted code keeps the user's file and line numbers, so tracebacks and op comments point at
    # the original source lines.
    ast.increment_lineno(wrapper, fn.__code__.co_firstlineno - first_line)
    try:
        code = compile(wrapper, fn.__code__.co_filename, "exec")
    except SyntaxError as e:
        raise ConversionError(f"the converted code of {fn.__qualname__} does not compile: {e}") from None
    factory_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    inner_code = next(c for c in factory_code.co_consts if isinstance(c, types.CodeType) and c.co_name == node.name)
    _CONVERTED_LAMBDAS.update(_nested_lambdas(inner_code))
    inner_code = inner_code.replace(co_name=fn.__code__.co_name, co_qualname=fn.__code__.co_qualname) \
        if hasattr(inner_code, "co_qualname") else inner_code.replace(co_name=fn.__code__.co_name)
    _ORIGINS[inner_code] = (fn.__name__, inner_code)
    for nested in _nested_code(inner_code):   # if_body_1, loop_test_2, ...: lines of the same function
        _ORIGINS.setdefault(nested, (fn.__name__, inner_code))
    return inner_code, converted_source


def _nested_code(code):
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield const
            yield from _nested_code(const)


def original_location(code, line):
    """(file, line) of the user's statement that line `line` of converted `code` was generated from, when
    `code` runs TensorFlow's generated form from a temporary file (a function that calls a debugger): error
    messages show the user's lines, as TensorFlow's do. None for other code (the lean conversion is
    compiled with the user's own file and lines)."""
    entry = _SOURCE_MAPS.get(code.co_filename)
    if entry is None or line not in entry[1]:
        return None
    return entry[0], entry[1][line]


def converted_origin(code):
    """(user function name, converted code object) when `code` is converted code or one of its generated
    inner functions; None otherwise. Error messages map such frames back to the user's function."""
    return _ORIGINS.get(code)


def _nested_lambdas(code):
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            if const.co_name == "<lambda>":
                yield const
            yield from _nested_lambdas(const)


def _flatten_stmts(items):
    out = []
    for item in items:
        if isinstance(item, list):
            out.extend(_flatten_stmts(item))
        else:
            out.append(item)
    return out


def _converted_code(fn, features=(), generated=False):
    key = (fn.__code__, features, generated) if features or generated else fn.__code__
    hit = _CACHE.get(key)
    if hit is None:
        try:
            hit = _transform(fn, features, generated)
        except ConversionError as e:
            hit = e
        _CACHE[key] = hit
    if isinstance(hit, ConversionError):
        raise hit
    return hit


def convert(fn, warn=True, features=(), generated=False):
    """The AutoGraph-converted version of `fn` (a function or method); `fn` itself when it cannot be.
    `features`: names of the optional conversions (`Feature` names) to apply as well. `generated`: the
    function runs TensorFlow's generated form (`to_graph`)."""
    if inspect.ismethod(fn):
        converted = convert(fn.__func__, warn, features, generated)
        return types.MethodType(converted, fn.__self__) if converted is not fn.__func__ else fn
    if not inspect.isfunction(fn):
        call = getattr(type(fn), "__call__", None)
        if inspect.isfunction(call) and not _is_library(call):
            converted = convert(call, warn, features, generated)
            return types.MethodType(converted, fn) if converted is not call else fn
        return fn
    code = fn.__code__
    if getattr(fn, "__ag_do_not_convert__", False) or getattr(fn, "__ag_converted__", False) or \
            code in _CONVERTED_LAMBDAS or \
            code.co_filename.startswith(_PACKAGE_DIR):
        return fn  # already converted, or tensorflux's own (e.g. the lambdas its ops hand to cond)
    if _verbosity.has_verbosity(1):
        return _logged_conversion(fn, warn, features, generated)
    return _convert_function(fn, warn, features, generated)


def _convert_function(fn, warn, features, generated=False):
    try:
        code, _ = _converted_code(fn, features, generated)
    except ConversionError as e:
        if warn and not e.silent and not e.reported:  # once per function, as its conversion is cached
            e.reported = True
            _report_not_converted(fn, e)
        return fn
    if code in _GENERATED:
        return _generated_function(fn, code)
    globals_ = fn.__globals__
    globals_.setdefault("ag__", ag__)
    if globals_["ag__"] is not ag__:
        raise ConversionError(f"the module of {fn.__qualname__} defines its own `ag__`, which AutoGraph needs")
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    closure = tuple(cells[name] if name in cells else types.CellType() for name in code.co_freevars)
    new = types.FunctionType(code, globals_, fn.__name__, fn.__defaults__, closure or None)
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__wrapped__ = fn
    new.__ag_converted__ = True
    functools.update_wrapper(new, fn, updated=())
    return new


def _generated_function(fn, code):
    """The function of generated-form `code` (`tf__<name>`, TensorFlow's name and qualified name, no
    `__wrapped__`: `inspect.getsource` shows the generated code) with `fn`'s globals, defaults and cells."""
    from .generated_module import AG_CELL_NAME
    if not _GENERATED_AG:
        from .generated_runtime import runtime_namespace
        _GENERATED_AG.append(types.CellType(runtime_namespace(converted_call)))
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    cells[AG_CELL_NAME] = _GENERATED_AG[0]
    closure = tuple(cells[name] if name in cells else types.CellType() for name in code.co_freevars)
    new = types.FunctionType(code, fn.__globals__, code.co_name, fn.__defaults__, closure or None)
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__ag_converted__ = True
    return new


def _logged_conversion(fn, warn, features, generated=False):
    """`fn` converted on its first call, logging the call, the conversion and the bound arguments the way
    TensorFlow's AutoGraph does at the current verbosity."""
    subkey = "ConversionOptions[{%s}]" % ", ".join(f"Feature.{f}" for f in features)

    @functools.wraps(fn)
    def logged_call(*args, **kwargs):
        _verbosity.log(1, "Converted call: %s\n    args: %s\n    kwargs: %s\n", fn, args, kwargs)
        key = (fn.__code__, features, generated) if features or generated else fn.__code__
        if key in _CACHE:
            _verbosity.log(3, "Cache hit for %s subkey %s: %s", fn, subkey, fn.__code__)
        else:
            _verbosity.log(1, "%s is not cached for subkey %s", fn, subkey)
            if _verbosity.has_verbosity(2):
                _log_conversion_texts(fn, features)
        converted = _convert_function(fn, warn, features, generated)
        if converted is not fn and _verbosity.has_verbosity(2):
            # TensorFlow's converted function is `tf__<name>`, made inside its loader's factories.
            shown = f"<function outer_factory.<locals>.inner_factory.<locals>.tf__{fn.__name__} at {id(converted):#x}>"
            _verbosity.log(2, "Defaults of %s : %s", shown, converted.__defaults__)
            _verbosity.log(2, "KW defaults of %s : %s", shown, converted.__kwdefaults__)
            try:
                bound = inspect.getcallargs(fn, *args, **kwargs)
            except TypeError:
                bound = {}
            _verbosity.log(2, "Calling %s with\n%s\n", shown, "\n".join(f"    {k}: {v}" for k, v in bound.items()))
        return converted(*args, **kwargs)

    logged_call.__ag_converted__ = True
    return logged_call


def _log_conversion_texts(fn, features):
    from .generated_code import generated_code
    try:
        source = textwrap.dedent(inspect.getsource(fn))
        transformed = generated_code(fn, features)
    except (OSError, TypeError, SyntaxError, UnsupportedLanguageElementError):
        return
    _verbosity.log(3, "Source code of %s:\n\n%s\n", fn, source)
    _verbosity.log(2, "Transformed %s:\n\n%s\n", fn, "# coding=utf-8\n" + transformed.rstrip("\n"))


def converted_call(f, args, kwargs):
    """Calls `f` from converted code: user functions are converted first; library code runs as-is."""
    kwargs = kwargs or {}
    if f is range and any(isinstance(a, SymbolicTensor) for a in args):
        return _creation.range(*args, **kwargs)
    if f is len and len(args) == 1 and isinstance(args[0], SymbolicTensor):
        return _tensor_len(args[0])
    if f is iter and len(args) == 1 and not kwargs and _state.graph is not None and \
            hasattr(type(args[0]), "_ag_for_stmt") and not hasattr(type(args[0]), "__next__"):
        # A dataset gives its own graph iterator (next() is IteratorGetNext, as in TensorFlow); other objects
        # that stage their own loops (a distributed dataset) keep the staged iterator.
        made = getattr(args[0], "_graph_iterator", None)
        made = made() if made is not None else None
        return made if made is not None else _StagedIterator(args[0])
    if getattr(f, "__ag_converted__", False) or not _should_convert(f):
        return f(*args, **kwargs)
    return convert(f)(*args, **kwargs)


class _StagedIterator:
    """`iter(dataset)` inside a function being traced: an iterator whose `for` loop is the dataset's own
    staged loop (TensorFlow makes an iterator op in the graph; a `for` over it is the same While loop as a
    `for` over the dataset)."""

    def __init__(self, iterable):
        self._iterable = iterable

    def _ag_for_stmt(self, extra_test, body, get_state, set_state, names):
        return self._iterable._ag_for_stmt(extra_test, body, get_state, set_state, names)

    def __iter__(self):
        return self

    def __next__(self):
        raise NotImplementedError("next() on an iterator made by iter() inside the tf.function is not "
                                  "supported by tensorflux: loop over it with `for`, or make the iterator "
                                  "outside the function (it = iter(dataset)) and call next(it) inside.")


def _tensor_len(t):
    dims = t.shape
    if dims.rank == 0:
        raise TypeError("len is not well defined for a scalar tensor.")
    if dims.rank is not None and dims[0] is not None:
        return dims[0]
    return _array.shape(t)[0]


ag__.converted_call = converted_call
ag__.convert_nested = functools.partial(convert, warn=False)


_NO_CODE = ("Cannot apply autograph to a function that doesn't expose a __code__ object. If this is a "
            "@tf.function, try passing f.python_function instead.")
_NO_SOURCE = ("Unable to locate the source code of {entity!r}. Note that functions defined in certain environments, "
              "like the interactive Python shell, do not expose their source code. If that is the case, you should "
              "define them in a .py source file. If you are certain the code is graph-compatible, wrap the call "
              "using @tf.autograph.experimental.do_not_convert. Original error: {error}")


def _function_with_source(entity):
    """The plain function behind `entity` (a function or a bound method), whose source `to_graph` and
    `to_code` convert; TensorFlow's ConversionError for anything else (a tf.function, a callable object, a
    builtin) and for a function whose source is unavailable."""
    if not hasattr(entity, "__code__"):
        raise ConversionError(f"converting {entity!r}: ValueError: {_NO_CODE}")
    fn = getattr(entity, "__func__", entity)
    try:
        inspect.getsource(fn)
    except (OSError, TypeError) as e:
        raise ConversionError(f"converting {entity!r}: InaccessibleSourceCodeError: "
                              + _NO_SOURCE.format(entity=entity, error=e)) from None
    return fn


def to_graph(entity, recursive=True, experimental_optional_features=None):
    """The converted Python function (graph-building code when called inside a tf.function): as in
    TensorFlow, compiled from its generated form (`to_code`'s text) in a temporary module. Raises
    ConversionError as TensorFlow does (no source, no `__code__`), UnsupportedLanguageElementError for a
    loop with `else`."""
    # As in TensorFlow, a bound method's conversion is its function: the caller passes the instance.
    fn = _function_with_source(entity)
    return convert(fn, features=feature_names(experimental_optional_features), generated=True)


def to_code(entity, recursive=True, experimental_optional_features=None):
    """The converted function's source in TensorFlow's generated form (`def tf__f(...)`, see
    `generated_code`), as a string; raises as `to_graph` does."""
    fn = _function_with_source(entity)
    features = feature_names(experimental_optional_features)
    if fn.__name__ == "<lambda>":
        _lambda_node(fn)   # TensorFlow's ConversionError when the lambda cannot be told apart from another
    from .generated_code import generated_code   # the view's passes load only when asked for
    try:
        return generated_code(fn, features)
    except (OSError, TypeError, SyntaxError) as e:
        raise ConversionError(f"converting {fn!r}: {type(e).__name__}: {e}") from None

