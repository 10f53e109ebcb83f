"""`tf.image` ops: geometry and crops (`basic.py`), colour conversions and adjustments, resizing."""
