"""Graph views: a FuncGraph as Graphviz DOT text (`graph.to_dot()`), and `show(fn, *args)` rendering a
traced function's graph to SVG when the `graphviz` package (and its `dot` program) is installed.

Each node shows its name, op type, output dtypes and shapes, and the user source line that created it;
the branch graphs of `If` and the cond/body graphs of `While` are drawn as clusters inside their op, with
dashed edges from the op's inputs. Names and labels are quoted DOT strings (escaped), never code.
"""
from ..framework.graph import FuncGraph
from ..function.polymorphic import Function

__all__ = ["to_dot", "show"]

_SUBGRAPH_ATTRS = {"then_graph": "then", "else_graph": "else", "cond_graph": "cond", "body_graph": "body",
                   "grad_graph": "gradient"}


def _quote(text):
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _label(op):
    outputs = ", ".join(f"{t.dtype.name}{t.shape}" for t in op.outputs) or "no outputs"
    where = f"{op.source[0].rsplit('/', 1)[-1]}:{op.source[1]}" if op.source else ""
    return "\n".join(part for part in (op.name, op.type, outputs, where) if part)


class _Writer:
    def __init__(self):
        self.lines = []
        self.ids = {}

    def node_id(self, op):
        key = id(op)
        if key not in self.ids:
            self.ids[key] = f"n{len(self.ids)}"
        return self.ids[key]

    def graph(self, graph, indent):
        pad = "  " * indent
        for op in graph.get_operations():
            shape = "ellipse" if op.type in ("Placeholder", "Const") else "box"
            self.lines.append(f"{pad}{self.node_id(op)} [label={_quote(_label(op))}, shape={shape}];")
        for op in graph.get_operations():
            for tensor in op.inputs:
                if tensor.op.graph is graph:
                    label = f"{tensor.dtype.name}{tensor.shape}"
                    self.lines.append(f"{pad}{self.node_id(tensor.op)} -> {self.node_id(op)} "
                                      f"[label={_quote(label)}];")
            for control in getattr(op, "control_inputs", ()):
                if getattr(control, "graph", None) is graph:
                    self.lines.append(f"{pad}{self.node_id(control)} -> {self.node_id(op)} [style=dotted];")
            for key, title in _SUBGRAPH_ATTRS.items():
                inner = op.attrs.get(key)
                if isinstance(inner, FuncGraph):
                    cluster = f"cluster_{self.node_id(op)}_{title}"
                    self.lines.append(f"{pad}subgraph {cluster} {{")
                    self.lines.append(f"{pad}  label={_quote(f'{op.name}: {title}')}; style=rounded;")
                    self.graph(inner, indent + 1)
                    self.lines.append(f"{pad}}}")
                    first = inner.get_operations()
                    if first:
                        self.lines.append(f"{pad}{self.node_id(op)} -> {self.node_id(first[0])} "
                                          f"[style=dashed, lhead={cluster}];")


def to_dot(graph):
    """The graph as Graphviz DOT source text."""
    writer = _Writer()
    writer.lines.append(f"digraph {_quote(getattr(graph, 'name', 'graph'))} {{")
    writer.lines.append("  compound=true; node [fontname=\"monospace\", fontsize=10];")
    writer.graph(graph, 1)
    writer.lines.append("}")
    return "\n".join(writer.lines) + "\n"


def show(fn, *args, **kwargs):
    """The graph of `fn` (a tf.function, traced on `args`, or a ConcreteFunction) rendered as SVG text;
    needs the `graphviz` Python package and Graphviz's `dot` program."""
    concrete = fn.get_concrete_function(*args, **kwargs) if isinstance(fn, Function) else fn
    dot = to_dot(concrete.graph)
    try:
        import graphviz
    except ImportError:
        raise ImportError("tensorflux.debugging.show renders with Graphviz: pip install graphviz (and install "
                          "Graphviz's `dot` program); `concrete.graph.to_dot()` gives the DOT text without it.") from None
    return graphviz.Source(dot).pipe(format="svg").decode()


FuncGraph.to_dot = lambda self: to_dot(self)
