"""TensorFlow's "Graph execution error:" form of an error raised while a traced function runs.

When an op of a tf.function fails at run time (an `tf.Assert`, `tf.debugging.check_numerics`, a bad
index), TensorFlow names the failing node and where the user's code defined it:

    Graph execution error:

    Detected at node Assert/Assert defined at (most recent call last):
      File "train.py", line 30, in <module>

      File "train.py", line 12, in check

    assertion failed: [example error]
    	 [[{{node Assert/Assert}}]] [Op:__inference_check_8]

The frames are the user's frames (tensorflux's own left out) of the call that traced the function,
recorded once per trace (`caller_frames`), then the line that created the node, in the function that
encloses that line in its source file.
"""
import ast
import functools
import linecache
import os
import sys

__all__ = ["caller_frames", "graph_execution_message"]

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def caller_frames():
    """[(file, line, function name)] of the current stack's frames outside tensorflux, outermost first.
    Called once per trace: the stack that `Detected at node` shows above the node's own line."""
    frames = []
    f = sys._getframe(1)
    while f is not None:
        code = f.f_code
        filename = code.co_filename
        if not filename.startswith(_PACKAGE_DIR) and not filename.startswith("<tensorflux"):
            frames.append((filename, f.f_lineno, code.co_name))
        f = f.f_back
    frames.reverse()
    return tuple(frames)


@functools.lru_cache(maxsize=64)
def _function_spans(filename, size):
    """[(first line, last line, name)] of every def in a source file, parsed once per file version (its
    text is only parsed, never run)."""
    text = "".join(linecache.getlines(filename))
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return ()
    return tuple((n.lineno, n.end_lineno, n.name) for n in ast.walk(tree)
                 if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))


def _enclosing_function(filename, lineno):
    """The name of the innermost function defined around `lineno` of `filename` (`<module>` at top level)."""
    lines = linecache.getlines(filename)
    if not lines:
        return "<module>"
    best = None
    for first, last, name in _function_spans(filename, len(lines)):
        if first <= lineno <= last and (best is None or first >= best[0]):
            best = (first, name)
    return best[1] if best is not None else "<module>"


def graph_execution_message(node, message, trace_frames, inference_name):
    """The text of the error `node` raised while running the function `inference_name`."""
    parts = ["Graph execution error:", "", f"Detected at node {node.name} defined at (most recent call last):"]
    if node.source is None:
        parts.append("<stack traces unavailable>")
    else:
        filename, lineno = node.source
        for frame_file, frame_line, name in tuple(trace_frames) + ((filename, lineno, None),):
            if name is None:
                name = _enclosing_function(filename, lineno)
            parts.extend([f'  File "{frame_file}", line {frame_line}, in {name}', ""])
    parts.append(f"{message}\n\t [[{{{{node {node.name}}}}}]] [Op:{inference_name}]")
    return "\n".join(parts)
