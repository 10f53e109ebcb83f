"""`Model.summary()`: the table of layers, output shapes and parameter counts that Keras 3 prints.

Keras draws the table with `rich`; this module reproduces its layout without the dependency:
- the line length is Keras' default (88, or 108 with a "Connected to" column, +12 with the "Trainable"
  column), capped at the terminal width minus 4 (80 columns when not a terminal, so 76);
- column widths come from Keras' relative positions; rich then takes the borders and padding out of
  the line length, shrinking every column by an equal share of the excess (rounded as rich rounds);
- a cell longer than its column wraps at spaces, and a word longer than the column is cut with "…";
- each row is as tall as its tallest cell, rows are separated by rules.
"""
import math
import re
import shutil

_WORD = re.compile(r"\s*\S+\s*")


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


def _format_shape(shape):
    dims = ["None" if d is None else str(d) for d in shape]
    return "(" + ", ".join(dims) + (",)" if len(dims) == 1 else ")")


def _shape_text(layer):
    """The output shape(s) of the layer's first functional call, else of its last call (batch as None)."""
    node = vars(layer).get("_first_node") if hasattr(layer, "__dict__") else None
    if node is not None and node.outputs:
        shapes = [_format_shape(t.shape) for t in node.outputs]
        return shapes[0] if len(shapes) == 1 else "[" + ", ".join(shapes) + "]"
    shape = layer._output_shape
    if shape is None or shape.rank is None:
        return "?"
    return _format_shape([None] + shape.as_list()[1:])


def _ratio_reduce(total, values):
    """rich's ratio_reduce with equal ratios: takes `total` off `values`, an equal rounded share each."""
    result, remaining, ratio_left = [], total, len(values)
    for value in values:
        share = min(value, round(remaining / ratio_left))
        result.append(value - share)
        remaining -= share
        ratio_left -= 1
    return result


def _content_widths(line_length, positions):
    widths, current = [], 0
    for position in positions:
        width = int(position * line_length) - current
        if width < 4:
            raise ValueError("Insufficient console width to print summary.")
        widths.append(width)
        current += width
    padded = [w + 2 for w in widths]                  # rich's cell padding: one space each side
    available = line_length - (len(widths) + 1)       # the vertical borders
    if sum(padded) > available:
        padded = _ratio_reduce(sum(padded) - available, padded)
    return [w - 2 for w in padded]


def _wrap(text, width):
    """The lines rich makes of `text` in a column `width` wide (ellipsis overflow)."""
    lines, line, offset = [], "", 0
    for word in _WORD.findall(text):
        length = len(word.rstrip())
        if width - offset >= length:
            line += word
            offset += len(word)
            continue
        if line:
            lines.append(line)
        line, offset = word.lstrip(), len(word.lstrip())
    lines.append(line)
    return [l.rstrip() if len(l.rstrip()) <= width else l.rstrip()[:width - 1] + "…" for l in lines] or [""]


def _aligned(text, width, align):
    if align == "right":
        return text.rjust(width)
    if align == "center":
        left = (width - len(text)) // 2
        return " " * left + text + " " * (width - len(text) - left)
    return text.ljust(width)


def _rows(cells, widths, aligns, border):
    wrapped = [_wrap(c, w) for c, w in zip(cells, widths)]
    height = max(len(lines) for lines in wrapped)
    out = []
    for i in range(height):
        parts = [" " + _aligned(lines[i] if i < len(lines) else "", w, a) + " "
                 for lines, w, a in zip(wrapped, widths, aligns)]
        out.append(border + border.join(parts) + border)
    return out


def _rule(widths, left, fill, middle, right):
    return left + middle.join(fill * (w + 2) for w in widths) + right


def summary_text(model, show_trainable=False, line_length=None, positions=None):
    steps = model._summary_steps() if hasattr(model, "_summary_steps") else model.layers
    connections = model._connections() if hasattr(model, "_connections") else None
    if connections is None:
        default_length, positions = 88, positions or [0.45, 0.80, 1.0]
        header, aligns = ["Layer (type)", "Output Shape", "Param #"], ["left", "left", "right"]
    else:
        default_length, positions = 108, positions or [0.3, 0.56, 0.74, 1.0]
        header = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
        aligns = ["left", "left", "right", "left"]
    if show_trainable:
        default_length += 12
        positions = [p * 0.90 for p in positions] + [1.0]
        header, aligns = header + ["Trainable"], aligns + ["center"]
    line_length = line_length or min(default_length, shutil.get_terminal_size().columns - 4)
    widths = _content_widths(line_length, positions)

    lines = [f'Model: "{model.name}"', _rule(widths, "┏", "━", "┳", "┓")]
    lines += _rows(header, widths, aligns, "┃")
    lines.append(_rule(widths, "┡", "━", "╇", "┩"))
    for i, layer in enumerate(steps):
        if i:
            lines.append(_rule(widths, "├", "─", "┼", "┤"))
        params = f"{layer.count_params():,}" if layer.built else "0 (unbuilt)"
        cells = [f"{layer.name} ({type(layer).__name__})", _shape_text(layer), params]
        if connections is not None:
            cells.append(connections.get(layer, ""))
        if show_trainable:
            cells.append(("Y" if layer.trainable else "N") if list(getattr(layer, "weights", ())) else "-")
        lines += _rows(cells, widths, aligns, "│")
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
