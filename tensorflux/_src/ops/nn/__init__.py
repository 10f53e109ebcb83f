"""Neural-network ops: activations, losses, normalisation, dropout, pooling (`basic.py`), convolutions
(`conv.py`) and their Winograd fast path."""
