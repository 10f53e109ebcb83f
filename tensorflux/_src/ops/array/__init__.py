"""Array ops: shapes, reshaping and joining (`basic.py`), creation, indexing and slicing, manipulation,
scatter/gather-style updates, segment reductions, sorting."""
