"""Math ops: elementwise arithmetic and functions (`arith.py`), comparisons and logic, reductions,
complex numbers."""
