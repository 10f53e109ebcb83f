"""Array ops: reshaping (`shaping.py`), reading shapes (`shape_ops.py`), transposing and reversing
(`reorder.py`), joining and splitting (`join.py`), tiling and padding (`padding.py`), creation, gathering,
`where`, indexing and slicing, manipulation, scatter/gather-style updates, segment reductions, sorting.

The package re-exports the shape and joining functions that rooms above ops (autodiff, autograph) use
as `array.reshape`, `array.stack`, …; modules inside ops import the module that defines a name.
"""
from .join import concat, split, stack, unstack
from .padding import pad, tile
from .reorder import reverse, transpose
from ..shapes.shape_ops import identity, rank, shape, shape_n, size, stop_gradient
from ..shapes.shaping import broadcast_to, expand_dims, reshape, squeeze

__all__ = ["reshape", "transpose", "expand_dims", "squeeze", "concat", "stack", "unstack", "split", "tile",
           "pad", "shape", "shape_n", "size", "rank", "broadcast_to", "identity", "stop_gradient", "reverse"]
