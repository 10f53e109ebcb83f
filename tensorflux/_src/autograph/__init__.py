"""AutoGraph: converts Python control flow on tensors into graph control flow (`tf.autograph`)."""
from . import api as _api
from .api import convert, converted_call, to_code, to_graph, do_not_convert, ConversionError
from .operators import set_loop_options
from ..framework import context as _context

_context.set_autograph_converter(convert)


def trace(*args):
    """`tf.autograph.trace`: prints its arguments (at trace time in graphs, like print)."""
    print(*args)


API = {
    "autograph": ["to_code", "to_graph", "trace"],
    "autograph.experimental": ["do_not_convert", "set_loop_options"],
}
