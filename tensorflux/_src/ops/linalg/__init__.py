"""Linear algebra: matrix ops and decompositions (`matrix.py`), `einsum`/`tensordot`."""
