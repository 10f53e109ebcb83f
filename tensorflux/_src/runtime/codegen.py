"""Codegen: turns a FuncGraph into the source of one Python function, compiles it and keeps the source.

Invariant: the generated function takes the graph's placeholders (arguments, then captures) as NumPy
values and returns a tuple of the output values; each op is one line calling its kernel directly, with
the user source line that created it as a comment. Constants become module-level names. The source is
registered with `linecache`, so tracebacks and pdb show generated lines; the entry leaves `linecache`
when the `Compiled` holding the function is collected (retracing does not grow memory without bound).

Security invariant (graphs may come from a loaded SavedModel, i.e. from a file): the generated text is
built only from identifiers made by `_Names` (ASCII letters, digits and `_`, nothing else), fixed
keywords and operators of this module, and comments reduced to printable ASCII. Constants and attr values
are never written as source: they are objects in the function's namespace, referred to by a mangled
name. Attr keys that are not plain identifiers are passed through a `**` dict, also from the namespace.

    def __inference_f_3(x, y):
        add = k_AddV2(x, y)                 # model.py:12: z = x + y
        Square = k_Square(add)              # model.py:13: return tf.square(z)
        return (Square,)
"""
import itertools
import keyword
import linecache
import re
import weakref

import numpy as np

from ..framework.graph import is_automatic_control_output
from ..framework.tensor import _as_stored
from . import fusion, passes

__all__ = ["compile_graph", "Compiled", "SPECIAL_TYPES"]

_SOURCE_NUMBERS = itertools.count(1)  # next() is atomic under the GIL: threads compiling at once get distinct names
_FREE_EARLY_ELEMENTS = 4096      # intermediates larger than this are freed right after their last use
_INPLACE_MIN_ELEMENTS = 1024     # below this, a fresh allocation is as cheap as reuse
_NOT_IDENTIFIER_CHAR = re.compile(r"[^A-Za-z0-9_]")   # ASCII only: `\w` would let Unicode through
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_GLOBAL_PREFIXES = ("k_", "u_")                      # kernels and helpers; no value name starts so
_MAX_NAME = 60                                        # longer names are cut (then made unique)


def safe_identifier(text, prefix="t"):
    """`text` as an ASCII Python identifier: every other character becomes `_`; never a keyword."""
    name = _NOT_IDENTIFIER_CHAR.sub("_", str(text))[:_MAX_NAME] or prefix
    if not name[0].isalpha() and name[0] != "_" or name.startswith("__"):
        name = f"{prefix}_{name}"      # no leading digit, no dunder names (`__import__`, `__builtins__`)
    if keyword.iskeyword(name) or name in ("None", "True", "False"):
        name += "_"
    return name


def is_plain_identifier(text):
    """True for an ASCII identifier that is not a keyword: may be written as a keyword-argument name."""
    return isinstance(text, str) and bool(_IDENTIFIER.match(text)) and not keyword.iskeyword(text) \
        and not text.startswith("__")


def comment_text(text):
    """`text` reduced to printable ASCII (no newline, carriage return, form feed or other line break), so
    it cannot end the comment line it is written on."""
    return "".join(c if " " <= c <= "~" else "?" for c in str(text))


class _Names:
    """Legal, unique Python identifiers derived from op names."""

    def __init__(self, reserved=()):
        self._used = set(reserved)

    def make(self, base):
        name = safe_identifier(base)
        if name.startswith(_GLOBAL_PREFIXES):
            name = "t_" + name
        candidate, i = name, 1
        while candidate in self._used:
            candidate = f"{name}_{i}"
            i += 1
        self._used.add(candidate)
        return candidate


class Compiled:
    """A compiled graph: the callable, its source and the line → op table used to name failing nodes."""

    __slots__ = ("fn", "source", "filename", "line_ops", "namespace", "__weakref__")

    def __init__(self, fn, source, filename, line_ops, namespace):
        self.fn = fn
        self.source = source
        self.filename = filename
        self.line_ops = line_ops
        self.namespace = namespace

    def op_at_line(self, lineno):
        return self.line_ops.get(lineno)


def compile_graph(graph, fn_name, outputs, inputs, keep_stateful=True, ops=None):
    """Compiles `graph` (after the runtime passes) into a Python function of `inputs` returning `outputs`.

    `keep_stateful=False` emits only what the outputs need (used to evaluate part of a graph eagerly);
    `ops` is an op list the passes already produced (then `outputs` refer to its tensors).
    """
    fn_name = safe_identifier(fn_name, "f")
    emitter = _Emitter(keep_stateful)
    emitter.names.make(fn_name)   # no value may shadow the function's own name
    emitter.prepared = ops
    params = [emitter.names.make(t.op.name) for t in inputs]
    value_names = {id(t): n for t, n in zip(inputs, params)}
    results = emitter.emit_graph(graph, outputs, value_names, 1)
    emitter.line(1, f"return ({', '.join(results)}{',' if len(results) == 1 else ''})")
    source = f"def {fn_name}({', '.join(params)}):\n" + "\n".join(emitter.lines) + "\n"
    filename = f"<tensorflux generated {fn_name} #{next(_SOURCE_NUMBERS)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    code = compile(source, filename, "exec")
    namespace = emitter.namespace
    exec(code, namespace)
    compiled = Compiled(namespace[fn_name], source, filename, emitter.line_ops, namespace)
    weakref.finalize(compiled, linecache.cache.pop, filename, None)
    return compiled


class _Emitter:
    """Emits the lines of a function body; nested If/While graphs are emitted inline as Python blocks."""

    def __init__(self, keep_stateful=True):
        self.keep_stateful = keep_stateful
        self.prepared = None
        self.fused_sources = []
        self.last_comment = None
        self.position = 0
        self.last_use, self.owned, self.dead_after, self.shared = {}, set(), {}, set()
        self.names = _Names(reserved={"np"})
        self.namespace = {"np": np, "__name__": "tensorflux.runtime.generated"}
        self.lines = []
        self.line_ops = {}

    def global_name(self, base, value):
        """The namespace name of a kernel or helper (`k_…`, `u_…`): a form `_Names` never makes, so no local
        value can shadow it (a node named `k_AddV2` becomes the local `t_k_AddV2`)."""
        name = safe_identifier(base)
        candidate, i = name, 1
        while self.namespace.get(candidate, value) is not value:
            candidate = f"{name}_{i}"
            i += 1
        self.namespace[candidate] = value
        return candidate

    def line(self, indent, text, op=None):
        self.lines.append("    " * indent + text)
        if op is not None:
            self.line_ops[1 + len(self.lines)] = op

    def emit_graph(self, graph, outputs, value_names, indent):
        """Emits `graph`'s ops (its placeholders already named in `value_names`); returns output names."""
        if self.prepared is not None:
            ops, self.prepared = self.prepared, None
        else:
            ops, outputs = passes.run_all(graph, outputs, self.keep_stateful, fuse_updates=True)
        saved = (self.last_use, self.owned, self.dead_after, self.position, self.shared)
        self.plan_buffers(ops, outputs)
        fused_at, fused_members = self.plan_fusion(ops, outputs)
        for position, op in enumerate(ops):
            self.position = position
            if id(op) in fused_members:
                region = fused_at.get(position)
                if region is not None:
                    self.emit_fused(region, value_names, indent)
                continue
            if is_automatic_control_output(op):   # in an op list the passes were given whole: runs nothing
                continue
            if op.type == "Placeholder":
                if id(op.outputs[0]) not in value_names:
                    raise ValueError(f"Placeholder {op.name} is not an input of the function being compiled")
                continue
            if op.type == "Const":
                cname = self.names.make("c_" + op.name)
                value = op.attrs["value"]
                if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "biuf":
                    value = value[()]  # a NumPy scalar: scalar arithmetic on it is ~10x cheaper than on 0-d arrays
                self.namespace[cname] = value
                value_names[id(op.outputs[0])] = cname
                continue
            emit = _SPECIAL.get(op.type)
            if emit is not None:
                emit(self, op, value_names, indent)
            else:
                self.emit_kernel_call(op, value_names, indent)
        self.last_use, self.owned, self.dead_after, self.position, self.shared = saved
        return [value_names[id(t)] for t in outputs]

    def output_names(self, op, value_names):
        outs = [self.names.make(op.name if i == 0 else f"{op.name}_{i}") for i in range(len(op.outputs))]
        for t, n in zip(op.outputs, outs):
            value_names[id(t)] = n
        return outs

    def emit_kernel_call(self, op, value_names, indent):
        expression = _scalar_expression(op, value_names)
        if expression is not None:  # a scalar op written as Python arithmetic on NumPy scalars
            (out,) = self.output_names(op, value_names)
            self.line(indent, f"{out} = {expression}" + self.comment(op), op)
            return
        kname = self.global_name("k_" + op.type, op.opdef.kernel)
        args = [value_names[id(t)] for t in op.inputs]
        odd_keys = {}
        for key, value in op.attrs.items():
            if not is_plain_identifier(key):  # never written into the source, not even escaped
                odd_keys[key] = value
                continue
            aname = self.names.make(f"a_{op.name}_{key}")
            self.namespace[aname] = value
            args.append(f"{key}={aname}")
        if odd_keys:
            dname = self.names.make(f"a_{op.name}_attrs")
            self.namespace[dname] = odd_keys
            args.append(f"**{dname}")
        reuse = self.reusable_input(op)
        if reuse is not None:
            kname = self.global_name("u_" + op.opdef.inplace.__name__, op.opdef.inplace)
            args = [value_names[id(t)] for t in op.inputs] + [f"out={value_names[id(reuse)]}"]
        call = f"{kname}({', '.join(args)})"
        if len(op.outputs) == 1 and not op.opdef.multi and op.outputs[0].dtype.name == "string":
            # Object-array kernels can return a bare `bytes` for a scalar; store it as a 0-d array.
            call = f"{self.global_name('k_stored', _as_stored)}({call})"
        outs = self.output_names(op, value_names)
        # A ufunc's result, or a kernel's own fresh array (OpDef.fresh_output: a MatMul's), may take a later
        # ufunc op's output in place once dead: `0.01 * dW` on [784, 128], 18 -> 15 us.
        if op.outputs and (op.opdef.inplace is not None or op.opdef.fresh_output):
            self.owned.add(id(op.outputs[0]))
        if not op.outputs:
            text = call
        elif op.opdef.multi:
            text = f"{', '.join(outs)}{',' if len(outs) == 1 else ''} = {call}"
        else:
            text = f"{outs[0]} = {call}"
        self.line(indent, text + self.comment(op), op)
        dead = self.dead_after.get(self.position)
        if dead:
            self.line(indent, f"del {', '.join(value_names[i] for i in dead if i in value_names)}")

    # -- fusion ----------------------------------------------------------------------------------
    def plan_fusion(self, ops, outputs):
        """Fused regions keyed by the position of their last op, and the ids of all member ops."""
        fused_at, members = {}, set()
        for region in fusion.find_regions(ops, outputs):
            inputs, outs = fusion.region_interface(region, ops, outputs)
            fused_at[max(i for i, op in enumerate(ops) if op is region[-1])] = (region, inputs, outs)
            members.update(id(m) for m in region)
        return fused_at, members

    def emit_fused(self, region, value_names, indent):
        members, inputs, outs = region
        fname = self.names.make("fused")
        fn, source = fusion.make_fused(members, inputs, outs, fname)
        self.namespace[fname] = fn
        self.fused_sources.append(source)
        names = []
        for t in outs:
            n = self.names.make(t.op.name)
            value_names[id(t)] = n
            names.append(n)
            self.owned.add(id(t))
        ops_text = comment_text(", ".join(m.type for m in members))
        self.line(indent, f"{', '.join(names)}{',' if len(names) == 1 else ''} = "
                          f"{fname}({', '.join(value_names[id(t)] for t in inputs)})  # fused: {ops_text}",
                  members[-1])

    # -- buffers ---------------------------------------------------------------------------------
    def plan_buffers(self, ops, outputs):
        """Last uses of this op list's values: which buffers an op may overwrite, which to free early."""
        last_use = {}
        shared = set()  # values some op may keep a reference to (not a ufunc): never overwritten
        for i, op in enumerate(ops):
            for t in op.inputs:
                last_use[id(t)] = i
                if op.opdef is None or op.opdef.inplace is None:
                    shared.add(id(t))
        self.shared = shared
        for t in outputs:
            last_use[id(t)] = len(ops)  # returned: never overwritten or freed
        self.last_use = last_use
        self.owned = set()
        self.dead_after = {}
        produced = {}
        for op in ops:
            if op.type not in ("Placeholder", "Const"):
                for t in op.outputs:
                    produced[id(t)] = t
        for tid, i in last_use.items():
            t = produced.get(tid)
            if t is None or i >= len(ops) or ops[i].type in _SPECIAL:
                continue
            n = t.shape.num_elements()
            if n is None or n > _FREE_EARLY_ELEMENTS:  # only big buffers are worth a `del`
                self.dead_after.setdefault(i, []).append(tid)

    def reusable_input(self, op):
        """An input buffer this op may write its result into: dead after it, produced here by a ufunc op,
        and of the output's exact dtype and static shape."""
        if op.opdef.inplace is None or len(op.outputs) != 1:
            return None
        out = op.outputs[0]
        if not out.shape.is_fully_defined() or out.shape.num_elements() < _INPLACE_MIN_ELEMENTS:
            return None
        for t in op.inputs:
            if id(t) in self.owned and id(t) not in self.shared and self.last_use.get(id(t)) == self.position \
                    and t.dtype is out.dtype and t.shape == out.shape:
                return t
        return None

    def comment(self, op):
        """The source comment for a line: only when the user line differs from the previous op's."""
        text = _source_comment(op)
        if not text or text == self.last_comment:
            return ""
        self.last_comment = text
        return f"  # {comment_text(text)}"

    def emit_subgraph(self, graph, input_names, indent):
        """Emits a nested graph whose placeholders take `input_names`; returns its output names."""
        value_names = {id(p): n for p, n in zip(graph.inputs, input_names)}
        return self.emit_graph(graph, graph.outputs, value_names, indent)


def _emit_if(em, op, value_names, indent):
    then_graph, else_graph, n_then = op.attrs["then_graph"], op.attrs["else_graph"], op.attrs["n_then"]
    names = [value_names[id(t)] for t in op.inputs]
    pred, captures = names[0], names[1:]
    outs = em.output_names(op, value_names)
    em.line(indent, f"if {pred}:" + em.comment(op), op)
    for graph, inputs in ((then_graph, captures[:n_then]), (else_graph, captures[n_then:])):
        if graph is else_graph:
            em.line(indent, "else:")
        results = em.emit_subgraph(graph, inputs, indent + 1)
        if outs:
            em.line(indent + 1, f"{', '.join(outs)}{',' if len(outs) == 1 else ''} = "
                                f"{', '.join(results)}{',' if len(results) == 1 else ''}")
        else:
            em.line(indent + 1, "pass")


def _emit_while(em, op, value_names, indent):
    cond_graph, body_graph = op.attrs["cond_graph"], op.attrs["body_graph"]
    n_vars, n_cond = op.attrs["n_vars"], op.attrs["n_cond"]
    names = [value_names[id(t)] for t in op.inputs]
    init, rest = names[:n_vars], names[n_vars:]
    limit = rest.pop() if op.attrs.get("has_max") else None
    cond_caps, body_caps = rest[:n_cond], rest[n_cond:]
    loop = [em.names.make(f"{op.name}_v{i}") for i in range(n_vars)]
    if loop:
        em.line(indent, f"{', '.join(loop)}{',' if len(loop) == 1 else ''} = "
                        f"{', '.join(init)}{',' if len(init) == 1 else ''}" + em.comment(op), op)
    history = None
    if op.attrs.get("keep_history"):  # a GradientTape differentiates this loop: keep each iteration's inputs
        history = em.names.make(f"{op.name}_history")
        em.line(indent, f"{history} = []")
    counter = None
    if limit is not None:
        counter = em.names.make(f"{op.name}_iterations")
        em.line(indent, f"{counter} = 0")
        em.line(indent, f"while {counter} < {limit}:", op)
    else:
        em.line(indent, "while True:", op)
    (keep,) = em.emit_subgraph(cond_graph, loop + cond_caps, indent + 1)
    em.line(indent + 1, f"if not {keep}:")
    em.line(indent + 2, "break")
    if history is not None:
        em.line(indent + 1, f"{history}.append(({', '.join(loop)}{',' if len(loop) == 1 else ''}))")
    results = em.emit_subgraph(body_graph, loop + body_caps, indent + 1)
    if loop:
        em.line(indent + 1, f"{', '.join(loop)}{',' if len(loop) == 1 else ''} = "
                            f"{', '.join(results)}{',' if len(results) == 1 else ''}")
    if counter is not None:
        em.line(indent + 1, f"{counter} += 1")
    outs = em.output_names(op, value_names)
    if history is not None:     # a variant value is a tuple (what eager ops and calls pass on)
        em.line(indent, f"{history} = tuple({history})")
    results = loop + ([history] if history is not None else [])
    if outs:
        em.line(indent, f"{', '.join(outs)}{',' if len(outs) == 1 else ''} = "
                        f"{', '.join(results)}{',' if len(results) == 1 else ''}")


def _emit_dataset_stage(em, op, value_names, indent):
    """A dataset loop's ScanDataset or TakeWhileDataset: nothing runs here (the loop runs at the
    ReduceDataset node that consumes it, reading the scan's inputs). Its variant value is a 1-tuple of its
    input (a tuple is what a call hands on as a variant, should a forward function return it)."""
    (out,) = em.output_names(op, value_names)
    em.line(indent, f"{out} = ({value_names[id(op.inputs[0])]},)" + em.comment(op), op)


def _emit_reduce_dataset(em, op, value_names, indent):
    """A dataset's loop (`for x in dataset` in a tf.function), staged ScanDataset [-> TakeWhileDataset] ->
    ReduceDataset: a Python `for` over the dataset's elements around the scan's inlined body; the extra
    test, when there is one, ends it before an element."""
    scan = op.inputs[0].op
    if scan.type == "TakeWhileDataset":
        scan = scan.inputs[0].op
    cond_graph, body_graph = scan.attrs["cond_graph"], scan.attrs["body_graph"]
    n_vars, n_state, n_cond = scan.attrs["n_vars"], scan.attrs["n_state"], scan.attrs["n_cond"]
    n_elements = scan.attrs["n_elements"]
    scan_names = [value_names[id(t)] for t in scan.inputs]
    dataset, init = scan_names[0], scan_names[1:1 + n_vars]
    cond_caps = scan_names[1 + n_state:1 + n_state + n_cond]
    body_caps = scan_names[1 + n_state + n_cond:]
    limit = value_names[id(op.inputs[-1])] if op.attrs.get("has_max") else None
    loop = [em.names.make(f"{op.name}_v{i}") for i in range(n_vars)]
    if loop:
        em.line(indent, f"{', '.join(loop)}{',' if len(loop) == 1 else ''} = "
                        f"{', '.join(init)}{',' if len(init) == 1 else ''}" + em.comment(op), op)
    counter = None
    if limit is not None:
        counter = em.names.make(f"{op.name}_iterations")
        em.line(indent, f"{counter} = 0")
    element = [em.names.make(f"{op.name}_e{i}") for i in range(n_elements)]
    target = f"{', '.join(element)}," if element else "_"
    em.line(indent, f"for {target} in {em.global_name('k_dataset_elements', _dataset_elements)}({dataset}):", op)
    if counter is not None:
        em.line(indent + 1, f"if {counter} >= {limit}:")
        em.line(indent + 2, "break")
        em.line(indent + 1, f"{counter} += 1")
    if cond_graph is not None:
        (keep,) = em.emit_subgraph(cond_graph, loop + cond_caps, indent + 1)
        em.line(indent + 1, f"if not {keep}:")
        em.line(indent + 2, "break")
    results = em.emit_subgraph(body_graph, loop + element + body_caps, indent + 1)
    if loop:
        em.line(indent + 1, f"{', '.join(loop)}{',' if len(loop) == 1 else ''} = "
                            f"{', '.join(results)}{',' if len(results) == 1 else ''}")
    else:
        em.line(indent + 1, "pass")
    outs = em.output_names(op, value_names)
    # The reduction's outputs past the loop variables (a loop without variables: the scan's dummy state;
    # a loop that can break: the "stopped" flag) are TensorFlow's; nothing reads them.
    finals = loop + [value_names[id(t)] for t in op.inputs[1 + n_vars:1 + len(op.outputs)]]
    em.line(indent, f"{', '.join(outs)}{',' if len(outs) == 1 else ''} = "
                    f"{', '.join(finals)}{',' if len(finals) == 1 else ''}")


def _dataset_elements(dataset):
    """The flat NumPy elements of a dataset (the run-time value of its variant tensor)."""
    return dataset._arrays()


def _emit_while_grad(em, op, value_names, indent):
    """The reverse loop of a While's gradient: the body-gradient graph once per saved iteration."""
    grad_graph, n_vars, n_templates = op.attrs["grad_graph"], op.attrs["n_vars"], op.attrs["n_templates"]
    names = [value_names[id(t)] for t in op.inputs]
    history, seeds = names[0], names[1:1 + n_vars]
    templates, caps = names[1 + n_vars:1 + n_vars + n_templates], names[1 + n_vars + n_templates:]
    grads = [em.names.make(f"{op.name}_g{i}") for i in range(n_vars)]
    accs = [em.names.make(f"{op.name}_acc{i}") for i in range(n_templates)]
    state = [em.names.make(f"{op.name}_v{i}") for i in range(n_vars)]
    em.line(indent, f"{', '.join(grads)}{',' if n_vars == 1 else ''} = {', '.join(seeds)}{',' if n_vars == 1 else ''}"
            + em.comment(op), op)
    for a in accs:
        em.line(indent, f"{a} = None")
    em.line(indent, f"for {', '.join(state)}{',' if n_vars == 1 else ''} in reversed({history}):")
    results = em.emit_subgraph(grad_graph, state + grads + caps, indent + 1)
    # Accumulate the captured tensors' gradients before the loop gradients are reassigned: a result
    # may be one of the current gradient names itself (e.g. d(a*v + w)/dw is the incoming gradient).
    accumulate, zeros_like = em.global_name("k_accumulate", _accumulate), em.global_name("k_zeros_like", _zeros_like_value)
    for a, r in zip(accs, results[n_vars:]):
        em.line(indent + 1, f"{a} = {accumulate}({a}, {r})")
    em.line(indent + 1, f"{', '.join(grads)}{',' if n_vars == 1 else ''} = "
                        f"{', '.join(results[:n_vars])}{',' if n_vars == 1 else ''}")
    for a, template in zip(accs, templates):
        em.line(indent, f"if {a} is None:")
        em.line(indent + 1, f"{a} = {zeros_like}({template})")
    outs = em.output_names(op, value_names)
    em.line(indent, f"{', '.join(outs)}{',' if len(outs) == 1 else ''} = {', '.join(grads + accs)}"
                    f"{',' if len(outs) == 1 else ''}")


def _zeros_like_value(value):
    """The zero gradient of a value: zeros of its shape, or an all-None item list for a TensorArray."""
    if isinstance(value, tuple):
        return (None,) * len(value)
    return np.zeros_like(value)


# Scalar ops whose kernel is exactly NumPy's operator on NumPy scalars (same ufunc loop, same dtype
# rules and rounding), emitted as `a + b` instead of a kernel call: ~50 ns instead of ~500 ns.
_SCALAR_OPERATORS = {"AddV2": "+", "Sub": "-", "Mul": "*", "RealDiv": "/", "Less": "<", "LessEqual": "<=",
                     "Greater": ">", "GreaterEqual": ">=", "Equal": "==", "NotEqual": "!="}
# Integer floor division/modulo match Python's operators, except for a zero divisor (TensorFlow raises):
# they are emitted as operators only when the divisor is a non-zero constant.
_INT_DIVISION_OPERATORS = {"FloorMod": "%", "FloorDiv": "//"}


def _scalar_expression(op, value_names):
    symbol = _SCALAR_OPERATORS.get(op.type)
    kinds = "f" if op.type == "RealDiv" else "fiu"
    if symbol is None and op.type in _INT_DIVISION_OPERATORS:
        divisor = op.inputs[1].op
        if divisor.type != "Const" or not np.all(divisor.attrs["value"]):
            return None
        symbol, kinds = _INT_DIVISION_OPERATORS[op.type], "iu"
    if symbol is None and op.type != "Neg":
        return None
    if len(op.outputs) != 1 or op.outputs[0].shape != () or op.control_inputs:
        return None
    for t in op.inputs:
        if t.shape != () or t.dtype._np.kind not in kinds or t.dtype.name in ("bfloat16", "float16"):
            return None
    names = [value_names[id(t)] for t in op.inputs]
    if op.type == "Neg":
        return f"-{names[0]}"
    return f"{names[0]} {symbol} {names[1]}"


def _accumulate(total, value):
    """Sums per-iteration gradients; TensorArray gradients (tuples) add item by item."""
    if total is None:
        return value
    if isinstance(total, tuple):
        return tuple(y if x is None else x if y is None else x + y for x, y in zip(total, value))
    return total + value


_SPECIAL = {"If": _emit_if, "StatelessIf": _emit_if, "While": _emit_while, "StatelessWhile": _emit_while,
            "WhileGrad": _emit_while_grad, "ReduceDataset": _emit_reduce_dataset,
            "ScanDataset": _emit_dataset_stage, "TakeWhileDataset": _emit_dataset_stage}
SPECIAL_TYPES = frozenset(_SPECIAL)     # op types with no kernel: only generated code runs them


def _source_comment(op):
    """`file.py:12: z = x + y` for the user line that created `op` (its own comment dropped)."""
    if op.source is None:
        return ""
    filename, lineno = op.source
    text = linecache.getline(filename, lineno).split("#")[0].strip()
    if len(text) > 70:
        text = text[:67] + "..."
    short = filename.rsplit("/", 1)[-1]
    return f"{short}:{lineno}: {text}" if text else f"{short}:{lineno}"
