"""Keras's object names: snake-case class names made unique per process (`dense`, `dense_1`, …)."""
import re

_NAME_USES = {}     # snake-case base name -> how many objects have used it


def to_snake_case(name):
    name = re.sub(r"\W+", "", name)
    name = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", name).lower()


def unique_name(base):
    """`base`, then `base_1`, `base_2`… (Keras names objects uniquely per process)."""
    uses = _NAME_USES.get(base, 0)
    _NAME_USES[base] = uses + 1
    return base if uses == 0 else f"{base}_{uses}"


def clear_session():
    _NAME_USES.clear()
