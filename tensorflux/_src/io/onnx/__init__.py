"""ONNX export (beyond TensorFlow): `tensorflux.onnx.export` writes a traced function or a Keras model as an
ONNX model, built with the optional `onnx` package (extra `[onnx]`, imported on first export).

export.py resolves what to export and assembles the model; builder.py holds names, initializers and the
walk over a FuncGraph; op_handlers.py, array_handlers.py, nn_handlers.py, extra_handlers.py and
control_flow.py map TensorFlow op types to ONNX nodes.
"""
# The handler modules fill builder.HANDLERS: loaded with the package, so that the table is complete however the
# room is first reached (it loads on first use: namespaces.LAZY_ROOMS).
from . import export  # noqa: E402,F401
