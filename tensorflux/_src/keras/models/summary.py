"""`Model.summary()`: the table of layers, output shapes and parameter counts that Keras prints."""
import math

_COLUMNS = (("Layer (type)", 31, "<"), ("Output Shape", 22, "<"), ("Param #", 13, ">"))


def readable_memory_size(size):
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if size / 1024 < 1:
            return f"{size:.2f} {unit}"
        size /= 1024
    return f"{size:.2f} PB"


def _count(variables):
    params = sum(math.prod(v.shape.as_list()) for v in variables)
    size = sum(math.prod(v.shape.as_list()) * v.dtype.size for v in variables)
    return params, size


def _shape_text(layer):
    shape = layer._output_shape
    if shape is None or shape.rank is None:
        return "?"
    dims = ["None"] + [str(d) for d in shape.as_list()[1:]]
    return "(" + ", ".join(dims) + (",)" if len(dims) == 1 else ")")


def _row(cells, widths, columns, left, middle, right):
    parts = []
    for text, (_, _, align), width in zip(cells, columns, widths):
        parts.append(" " + f"{text:{align}{width}}" + " ")
    return left + middle.join(parts) + right


def _rule(widths, left, fill, middle, right):
    return left + middle.join(fill * (w + 2) for w in widths) + right


def summary_text(model):
    steps = model._summary_steps() if hasattr(model, "_summary_steps") else model.layers
    connections = model._connections() if hasattr(model, "_connections") else None
    columns = _COLUMNS + ((("Connected to", 17, "<"),) if connections is not None else ())
    rows = []
    for layer in steps:
        params = f"{layer.count_params():,}" if layer.built else "0 (unbuilt)"
        row = (f"{layer.name} ({type(layer).__name__})", _shape_text(layer), params)
        rows.append(row + ((connections.get(layer, ""),) if connections is not None else ()))
    widths = [max([w] + [len(r[i]) for r in rows]) for i, (_, w, _) in enumerate(columns)]
    lines = [f'Model: "{model.name}"', _rule(widths, "┏", "━", "┳", "┓"),
             _row([c[0] for c in columns], widths, columns, "┃", "┃", "┃"),
             _rule(widths, "┡", "━", "╇", "┩")]
    for i, row in enumerate(rows):
        if i:
            lines.append(_rule(widths, "├", "─", "┼", "┤"))
        lines.append(_row(row, widths, columns, "│", "│", "│"))
    lines.append(_rule(widths, "└", "─", "┴", "┘"))
    trainable = _count(model.trainable_weights)
    non_trainable = _count(model.non_trainable_weights)
    optimizer = model.optimizer if getattr(model.optimizer, "built", False) else None
    optimizer_count = _count(optimizer.variables) if optimizer is not None else (0, 0)
    total = tuple(a + b + c for a, b, c in zip(trainable, non_trainable, optimizer_count))
    for label, (params, size) in (("Total", total), ("Trainable", trainable), ("Non-trainable", non_trainable)):
        lines.append(f" {label} params: {params:,} ({readable_memory_size(size)})")
    if optimizer is not None:
        lines.append(f" Optimizer params: {optimizer_count[0]:,} ({readable_memory_size(optimizer_count[1])})")
    return "\n".join(lines)
