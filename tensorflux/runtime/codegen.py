"""Codegen: turns a FuncGraph into the source of one Python function, compiles it and keeps the source.

Invariant: the generated function takes the graph's placeholders (arguments, then captures) as NumPy
values and returns a tuple of the output values; each op is one line calling its kernel directly, with
the user source line that created it as a comment. Constants become module-level names. The source is
registered with `linecache`, so tracebacks and pdb show generated lines.

    def __inference_f_3(x, y):
        add = k_AddV2(x, y)                 # model.py:12: z = x + y
        Square = k_Square(add)              # model.py:13: return tf.square(z)
        return (Square,)
"""
import keyword
import linecache
import re

import numpy as np

from . import passes

__all__ = ["compile_graph", "Compiled"]

_COUNTER = [0]
_LITERAL_TYPES = (int, float, bool, str, bytes, type(None))


def _is_literal(v):
    if type(v) in _LITERAL_TYPES:
        return not (type(v) is float and (v != v or v in (float("inf"), float("-inf"))))
    if type(v) in (tuple, list):
        return all(_is_literal(x) for x in v)
    return False


class _Names:
    """Legal, unique Python identifiers derived from op names."""

    def __init__(self, reserved=()):
        self._used = set(reserved)

    def make(self, base):
        name = re.sub(r"\W", "_", base) or "t"
        if name[0].isdigit():
            name = "t_" + name
        if keyword.iskeyword(name) or name in ("None", "True", "False"):
            name += "_"
        candidate, i = name, 1
        while candidate in self._used:
            candidate = f"{name}_{i}"
            i += 1
        self._used.add(candidate)
        return candidate


class Compiled:
    """A compiled graph: the callable, its source and the line → op table used to name failing nodes."""

    __slots__ = ("fn", "source", "filename", "line_ops", "namespace")

    def __init__(self, fn, source, filename, line_ops, namespace):
        self.fn = fn
        self.source = source
        self.filename = filename
        self.line_ops = line_ops
        self.namespace = namespace

    def op_at_line(self, lineno):
        return self.line_ops.get(lineno)


def compile_graph(graph, fn_name, outputs, inputs):
    """Compiles `graph` (after the runtime passes) into a Python function of `inputs` returning `outputs`."""
    ops, outputs = passes.run_all(graph, outputs)
    names = _Names(reserved={"np"})
    namespace = {"np": np}
    value_names = {}   # id(SymbolicTensor) -> expression
    params = []
    for t in inputs:
        n = names.make(t.op.name)
        value_names[id(t)] = n
        params.append(n)
    lines = []
    line_ops = {}
    header_lines = 1
    for op in ops:
        if op.type == "Placeholder":
            if id(op.outputs[0]) not in value_names:
                raise ValueError(f"Placeholder {op.name} is not an input of the function being compiled")
            continue
        if op.type == "Const":
            cname = names.make("c_" + op.name)
            namespace[cname] = op.attrs["value"]
            value_names[id(op.outputs[0])] = cname
            continue
        kname = "k_" + re.sub(r"\W", "_", op.type)
        kernel = op.opdef.kernel
        if namespace.get(kname, kernel) is not kernel:
            kname = names.make(kname)
        namespace[kname] = kernel
        args = [value_names[id(t)] for t in op.inputs]
        for key, value in op.attrs.items():
            if _is_literal(value):
                args.append(f"{key}={value!r}")
            else:
                aname = names.make(f"a_{op.name}_{key}")
                namespace[aname] = value
                args.append(f"{key}={aname}")
        call = f"{kname}({', '.join(args)})"
        outs = [names.make(op.name if i == 0 else f"{op.name}_{i}") for i in range(len(op.outputs))]
        for t, n in zip(op.outputs, outs):
            value_names[id(t)] = n
        if not op.outputs:
            line = call
        elif op.opdef.multi:
            line = f"{', '.join(outs)}{',' if len(outs) == 1 else ''} = {call}"
        else:
            line = f"{outs[0]} = {call}"
        comment = _source_comment(op)
        lines.append(f"    {line}" + (f"  # {comment}" if comment else ""))
        line_ops[header_lines + len(lines)] = op
    result = ", ".join(value_names[id(t)] for t in outputs)
    lines.append(f"    return ({result}{',' if len(outputs) == 1 else ''})")
    source = f"def {fn_name}({', '.join(params)}):\n" + "\n".join(lines) + "\n"
    _COUNTER[0] += 1
    filename = f"<tensorflux generated {fn_name} #{_COUNTER[0]}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    code = compile(source, filename, "exec")
    exec(code, namespace)
    return Compiled(namespace[fn_name], source, filename, line_ops, namespace)


def _source_comment(op):
    if op.source is None:
        return ""
    filename, lineno = op.source
    text = linecache.getline(filename, lineno).strip()
    short = filename.rsplit("/", 1)[-1]
    return f"{short}:{lineno}: {text}" if text else f"{short}:{lineno}"
