"""tf.function: tracing, polymorphic dispatch and concrete functions."""
from ..framework import context as _context
from .polymorphic import Function, function
from .concrete import ConcreteFunction
from .trace_type import TraceType

run_functions_eagerly = _context.run_functions_eagerly
functions_run_eagerly = _context.functions_run_eagerly

API = {
    "": ["function"],
    "config": ["run_functions_eagerly", "functions_run_eagerly"],
    "types.experimental": ["TraceType", "ConcreteFunction", "PolymorphicFunction=Function",
                           "GenericFunction=Function"],
    "types": [],
}
