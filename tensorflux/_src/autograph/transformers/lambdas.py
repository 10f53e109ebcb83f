"""Finding a lambda's syntax tree: the lambdas of its file that start on its first line and take its
parameters. Both conversions of a lambda (the lean one and TensorFlow's generated form) start here; when
more than one lambda matches, AutoGraph cannot tell which one it is and leaves it unconverted.

    candidates = lambda_candidates(fn)   # [ast.Lambda], usually one
"""
import ast
import inspect

__all__ = ["lambda_candidates"]


def lambda_candidates(fn):
    """The `ast.Lambda` nodes of `fn`'s file that may be `fn` (raises OSError/TypeError when its source
    is unavailable, SyntaxError when the file does not parse)."""
    code = fn.__code__
    lines, _ = inspect.findsource(fn)
    tree = ast.parse("".join(lines))
    names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    return [n for n in ast.walk(tree) if isinstance(n, ast.Lambda) and n.lineno == code.co_firstlineno
            and tuple(a.arg for a in n.args.posonlyargs + n.args.args + n.args.kwonlyargs) == names]
