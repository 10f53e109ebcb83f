"""Flattening and re-packing of nested structures (`tf.nest`).

Sequences are lists, tuples and namedtuples; mappings are dicts (flattened in sorted key order, as
TensorFlow does); everything else — tensors, variables, numbers, None — is a leaf.

    >>> flatten({"b": [1, 2], "a": 3})
    [3, 1, 2]
"""
import collections.abc as _abc

__all__ = ["flatten", "pack_sequence_as", "map_structure", "assert_same_structure", "is_nested",
           "flatten_with_paths", "map_structure_with_paths"]


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def is_nested(x):
    return isinstance(x, (list, tuple, dict, _abc.Mapping)) and not isinstance(x, (str, bytes))


is_sequence = is_nested


def _sorted_keys(mapping):
    try:
        return sorted(mapping)
    except TypeError:
        raise TypeError("nest only supports dicts with sortable keys.") from None


def _children(x):
    if isinstance(x, (dict, _abc.Mapping)):
        return [x[k] for k in _sorted_keys(x)]
    return list(x)


def flatten(structure, expand_composites=False):
    """The leaves of `structure` in a deterministic order."""
    if not is_nested(structure):
        return [structure]
    out = []
    _flatten_into(structure, out)
    return out


def _flatten_into(x, out):
    if type(x) is list or type(x) is tuple:
        for c in x:
            if is_nested(c):
                _flatten_into(c, out)
            else:
                out.append(c)
    elif is_nested(x):
        for c in _children(x):
            if is_nested(c):
                _flatten_into(c, out)
            else:
                out.append(c)
    else:
        out.append(x)


def _rebuild(template, children):
    if isinstance(template, (dict, _abc.Mapping)):
        keys = _sorted_keys(template)
        mapping = dict(zip(keys, children))
        if type(template) is dict:
            return {k: mapping[k] for k in template}  # keeps the user's insertion order
        try:
            return type(template)((k, mapping[k]) for k in template)
        except TypeError:
            return {k: mapping[k] for k in template}
    if _is_namedtuple(template):
        return type(template)(*children)
    if isinstance(template, tuple):
        return tuple(children) if type(template) is tuple else type(template)(children)
    return list(children) if type(template) is list else type(template)(children)


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """Builds a structure shaped like `structure` whose leaves are `flat_sequence`, in order."""
    flat_sequence = list(flat_sequence)
    if not is_nested(structure):
        if len(flat_sequence) != 1:
            raise ValueError(f"The target structure is of type `{type(structure)}`\n  {structure}\nHowever "
                             f"the input is a sequence ({type(flat_sequence)}) of length "
                             f"{len(flat_sequence)}.\n  {flat_sequence}\nnest cannot guarantee that it "
                             f"is safe to map one to the other.")
        return flat_sequence[0]
    position, packed = _pack(structure, flat_sequence, 0)
    if position != len(flat_sequence):
        raise ValueError(f"Could not pack sequence. Structure had {position} atoms, but flat_sequence had "
                         f"{len(flat_sequence)} items.  Structure: {structure}, flat_sequence: "
                         f"{flat_sequence}.")
    return packed


def _pack(structure, flat, index):
    children = []
    for c in _children(structure):
        if is_nested(c):
            index, packed = _pack(c, flat, index)
            children.append(packed)
        else:
            if index >= len(flat):
                raise ValueError("Could not pack sequence: flat_sequence has too few items for the structure.")
            children.append(flat[index])
            index += 1
    return index, _rebuild(structure, children)


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    """Raises ValueError (or TypeError for differing sequence types) unless both have one structure."""
    _assert_same(nest1, nest2, check_types, nest1, nest2)


def _assert_same(a, b, check_types, top1, top2):
    na, nb = is_nested(a), is_nested(b)
    if na != nb:
        raise ValueError(f"The two structures don't have the same nested structure.\n\nFirst structure: "
                         f"{top1}\n\nSecond structure: {top2}\n\nMore specifically: Substructure "
                         f"\"{a if na else b}\" is a sequence, while substructure \"{b if na else a}\" is not")
    if not na:
        return
    if check_types and type(a) is not type(b) and not (isinstance(a, dict) and isinstance(b, dict)):
        raise TypeError(f"The two structures don't have the same sequence type. Input structure has type "
                        f"{type(a)}, while shallow structure has type {type(b)}.")
    if isinstance(a, (dict, _abc.Mapping)) and set(a) != set(b):
        raise ValueError(f"The two dictionaries don't have the same set of keys. First structure has keys "
                         f"{_sorted_keys(a)}, while second structure has keys {_sorted_keys(b)}.")
    ca, cb = _children(a), _children(b)
    if len(ca) != len(cb):
        raise ValueError(f"The two structures don't have the same nested structure.\n\nFirst structure: "
                         f"{top1}\n\nSecond structure: {top2}\n\nMore specifically: The two structures "
                         f"don't have the same number of elements. First structure: {a}. Second "
                         f"structure: {b}.")
    for x, y in zip(ca, cb):
        _assert_same(x, y, check_types, top1, top2)


def map_structure(func, *structure, **kwargs):
    """Applies `func` to corresponding leaves; the result has the first structure's shape."""
    if not structure:
        raise ValueError("Must provide at least one structure")
    check_types = kwargs.pop("check_types", True)
    kwargs.pop("expand_composites", None)
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types)
    flats = [flatten(s) for s in structure]
    return pack_sequence_as(structure[0], [func(*xs) for xs in zip(*flats)])


def flatten_with_paths(structure):
    """`[(path, leaf)]` where a path is a tuple of keys/indices from the root."""
    out = []

    def walk(x, path):
        if not is_nested(x):
            out.append((path, x))
            return
        if isinstance(x, (dict, _abc.Mapping)):
            for k in _sorted_keys(x):
                walk(x[k], path + (k,))
        else:
            for i, c in enumerate(x):
                walk(c, path + (i,))

    walk(structure, ())
    return out


def map_structure_with_paths(func, structure):
    pairs = flatten_with_paths(structure)
    return pack_sequence_as(structure, [func(p, x) for p, x in pairs])


def flatten_with_joined_string_paths(structure, separator="/"):
    return [(separator.join(str(p) for p in path), leaf) for path, leaf in flatten_with_paths(structure)]
