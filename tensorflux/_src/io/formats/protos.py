"""The generated protobuf modules, imported on first use so that `import tensorflux` never loads protobuf.

`protos.load("tensor_bundle")` returns `tensorflux._src.io.formats.pb.tensor_bundle_pb2`. Only the names
of the generated modules are accepted (a fixed table, never a name read from a file). When protobuf is
not installed the ImportError says which package to install.
"""
import importlib

__all__ = ["load", "MODULES", "parse"]

MODULES = frozenset((
    "attr_value", "event", "example", "feature", "fingerprint", "full_type", "function", "graph",
    "graph_debug_info", "histogram", "meta_graph", "node_def", "op_def", "resource_handle", "saved_model",
    "saved_object_graph", "saver", "struct", "summary", "tensor", "tensor_bundle", "tensor_shape",
    "tensor_slice", "trackable_object_graph", "types", "variable", "versions",
))

_INSTALL_HINT = ("Reading and writing TensorFlow's file formats (SavedModel, checkpoints, TFRecord "
                 "Examples, event files) needs the protobuf package: pip install protobuf")


def load(name):
    """The generated module `<name>_pb2` (e.g. "saved_model")."""
    if name not in MODULES:
        raise ValueError(f"no generated protobuf module named {name!r}; known: {sorted(MODULES)}")
    try:
        import google.protobuf  # noqa: F401  (checked first so the error names the missing package)
    except ImportError as error:
        raise ImportError(_INSTALL_HINT) from error
    return importlib.import_module(f"{__package__}.pb.{name}_pb2")


def parse(message_class, data, what):
    """`message_class` parsed from `data`; DataLossError naming `what` when the bytes are not one."""
    from google.protobuf.message import DecodeError
    from ...framework.errors import DataLossError
    message = message_class()
    try:
        message.ParseFromString(bytes(data))
    except (DecodeError, RuntimeWarning, ValueError) as error:
        raise DataLossError(None, None, f"cannot parse {what} as {message_class.DESCRIPTOR.full_name}: "
                            f"{error}") from None
    return message
