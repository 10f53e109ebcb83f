"""AutoGraph: converts Python control flow on tensors into graph control flow (`tf.autograph`)."""
from . import api as _api
from .api import convert, converted_call, to_code, to_graph, do_not_convert, ConversionError
from .operators import set_loop_options
from ..framework import context as _context

_context.set_autograph_converter(convert)


def set_verbosity(level, alsologtostdout=False):
    """`tf.autograph.set_verbosity`: `alsologtostdout` also prints AutoGraph's warnings to stdout (the level
    of detail is not used: tensorflux logs only functions it could not convert)."""
    _api._ECHO_TO_STDOUT[0] = bool(alsologtostdout)


def trace(*args):
    """`tf.autograph.trace`: prints its arguments (at trace time in graphs, like print)."""
    print(*args)


API = {
    "autograph": ["to_code", "to_graph", "set_verbosity", "trace"],
    "autograph.experimental": ["do_not_convert", "set_loop_options"],
}
