"""The shape ops every family builds on, below math: reading a shape (Shape, Size, Rank; `shape_ops.py`),
changing only the shape (Reshape, ExpandDims, Squeeze, BroadcastTo; `shaping.py`), and the creators math
needs (Fill, zeros/ones, ZerosLike/OnesLike, Range; `creators.py`), with the argument helpers the array ops
share (`common.py`). Gradients that need math (Fill's, BroadcastTo's sums) are registered by math."""
