"""TensorFlow's generated form of a converted function as the code that runs, from a temporary file.

TensorFlow's AutoGraph writes each converted function into a temporary module
`<tmp>/__autograph_generated_file<random>.py` and runs it from there, so `inspect.getsourcefile` of
`tf.autograph.to_graph(f)`, tracebacks, and a debugger stopped inside the function all show the generated
code (`tf__f`, `ag__.if_stmt`, `get_state`, ...). The file has TensorFlow's layout:

    # coding=utf-8
    def outer_factory():
        k = None                    # one line per free variable of the user's function

        def inner_factory(ag__):

            def tf__f(a):
                with ag__.FunctionScope('f', 'fscope', ...) as fscope:
                    ...
            return tf__f
        return inner_factory

`generated_function_code(fn)` returns the code object of `tf__f`, compiled from that text under the
file's name, and a map from the file's lines to the user's; `api` makes the function from the code with
the original's globals and closure cells (plus a cell holding the `ag__` of `generated_runtime`), without
running the module. The text is produced only from the user's own function source (the same source the
lean conversion compiles) and is compiled from memory, never read back; nothing read from any other file
reaches it. The files are private (mode 0600, unique names) and removed when the process exits.
"""
import ast
import atexit
import linecache
import os
import types

from .generated_code import generated_node

__all__ = ["generated_function_code", "AG_CELL_NAME"]

AG_CELL_NAME = "ag__"   # the inner factory's parameter: generated code reads its runtime through this cell
_PREFIX = "__autograph_generated_file"
_WRITTEN = []           # paths of the files this process wrote, removed at exit


def _remove_written():
    for path in _WRITTEN:
        try:
            os.remove(path)
        except OSError:
            pass


def _module_text(fn, features):
    """(the generated module's source, the converted function's `def` node) for the plain function `fn`;
    the node's line numbers are those of the user's source (1: the first line `inspect.getsource` gives)."""
    node = generated_node(fn, features)

    def def_(name, params, body):
        return ast.FunctionDef(name=name, args=ast.arguments(
            posonlyargs=[], args=[ast.arg(arg=p) for p in params], vararg=None, kwonlyargs=[], kw_defaults=[],
            kwarg=None, defaults=[]), body=body, decorator_list=[], returns=None, type_params=[])

    # The free variables are bound in the outer factory so the converted function keeps them as closure
    # variables (not globals); their cells are replaced by the original function's when it is made.
    free = [ast.Assign(targets=[ast.Name(id=v, ctx=ast.Store())], value=ast.Constant(None))
            for v in fn.__code__.co_freevars]
    inner = def_("inner_factory", [AG_CELL_NAME], [node, ast.Return(value=ast.Name(id=_bound_name(node),
                                                                                   ctx=ast.Load()))])
    outer = def_("outer_factory", [], free + [inner, ast.Return(value=ast.Name(id="inner_factory", ctx=ast.Load()))])
    module = ast.fix_missing_locations(ast.Module(body=[outer], type_ignores=[]))
    return "# coding=utf-8\n" + ast.unparse(module) + "\n", node


def _bound_name(node):
    """The name the generated statement binds: `tf__f` for a def, `tf__lam` for a lambda's assignment."""
    return node.name if isinstance(node, ast.FunctionDef) else node.targets[0].id


def _line_map(node, text, first_line):
    """{line of the generated module: line of the user's file} for the converted def `node` (user-source
    line numbers) and the module `text` made from it: the two trees are walked together (unparsing
    keeps the tree's shape), each generated line taking the line of the first node on it. Empty when the
    shapes differ."""
    generated = next((n for n in ast.walk(ast.parse(text))
                      if type(n) is type(node) and _bound_name(n) == _bound_name(node)), None)
    mapping = {}
    if generated is None:
        return mapping
    for new, old in zip(ast.walk(generated), ast.walk(node)):
        if type(new) is not type(old):
            return {}
        if hasattr(new, "lineno") and hasattr(old, "lineno"):
            mapping.setdefault(new.lineno, old.lineno + first_line - 1)
    return mapping


def _write(text):
    """Writes `text` to a new private temporary file; returns its path. The name is unique (mkstemp opens
    it exclusively), and nothing reads the file before the code compiled from `text` runs."""
    import tempfile   # loads with the first generated module: it costs `import tensorflux` ~20 ms
    handle, path = tempfile.mkstemp(suffix=".py", prefix=_PREFIX, text=True)
    with os.fdopen(handle, "w", encoding="utf-8") as f:
        f.write(text)
    if not _WRITTEN:
        atexit.register(_remove_written)
    _WRITTEN.append(path)
    # Tracebacks and debuggers read the lines through linecache; an entry without a modification time
    # stays valid even if a temp-directory cleaner removes the file.
    lines = text.splitlines(keepends=True)
    linecache.cache[path] = (len(text), None, lines, path)
    return path


def _find_code(code, name):
    for const in code.co_consts:
        if isinstance(const, types.CodeType) and const.co_name == name:
            return const
    raise LookupError(name)


def generated_function_code(fn, features=()):
    """(code object of the converted `tf__<name>`, the generated module's source, {generated line: line of
    `fn`'s file}) for the plain function `fn`, compiled from a new temporary file. Raises
    OSError/TypeError/SyntaxError when `fn`'s source is unavailable or cannot be converted."""
    text, node = _module_text(fn, features)
    path = _write(text)
    module_code = compile(text, path, "exec")
    outer = _find_code(module_code, "outer_factory")
    code = _find_code(_find_code(outer, "inner_factory"),
                      node.name if isinstance(node, ast.FunctionDef) else "<lambda>")
    return code, text, _line_map(node, text, fn.__code__.co_firstlineno)
