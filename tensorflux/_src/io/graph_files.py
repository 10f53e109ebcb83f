"""`tf.io.write_graph`: a graph's GraphDef written to `logdir/name` as text (`.pbtxt`, protobuf's text
format) or binary, atomically, as TensorFlow writes it; the path is returned.

    tf.io.write_graph(concrete_fn.graph, "export", "model.pbtxt")
"""
import os

from .atomic import atomic_write


def _graph_def(graph_or_graph_def):
    as_graph_def = getattr(graph_or_graph_def, "as_graph_def", None)
    if callable(as_graph_def):
        return as_graph_def()
    if type(graph_or_graph_def).__name__ == "GraphDef" and hasattr(graph_or_graph_def, "SerializeToString"):
        return graph_or_graph_def
    raise TypeError(f"graph_or_graph_def must be a graph (with as_graph_def) or a GraphDef protocol buffer, got "
                    f"{type(graph_or_graph_def).__name__}")


def write_graph(graph_or_graph_def, logdir, name, as_text=True):
    """`tf.io.write_graph`: writes the GraphDef to `logdir/name` (text unless `as_text=False`), making
    `logdir` if needed; returns the path written."""
    graph_def = _graph_def(graph_or_graph_def)
    logdir = os.fspath(logdir)
    os.makedirs(logdir, exist_ok=True)
    path = os.path.join(logdir, os.fspath(name))
    if as_text:
        from google.protobuf import text_format
        data = text_format.MessageToString(graph_def).encode()
    else:
        data = graph_def.SerializeToString(deterministic=True)
    with atomic_write(path) as f:
        f.write(data)
    return path


API = {"io": ["write_graph"]}
