"""Flattening and re-packing of nested structures (`tf.nest`).

Nested means: lists, tuples, namedtuples, other `collections.abc.Sequence`s except strings, mappings
(flattened in sorted key order, as TensorFlow does, and re-packed in the template's own key order) and
mapping views. Everything else — tensors, arrays, numbers, strings, sets, None — is a leaf.

    >>> flatten({"b": [1, 2], "a": 3})
    [3, 1, 2]
"""
import abc as _abc_module
import collections.abc as _abc

__all__ = ["flatten", "pack_sequence_as", "map_structure", "assert_same_structure", "is_nested"]


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


# type -> is_nested's answer for its instances: the ABC checks cost ~0.3 µs, and tracing asks about every
# tensor it carries through cond and while. Bounded, as classes can be made at run time (namedtuples), and
# forgotten when a class is registered with an ABC (abc's cache token changes).
_NESTED_BY_TYPE = {}
_NESTED_TOKEN = [_abc_module.get_cache_token()]


def is_nested(seq):
    """True for the containers nest recurses into (see the module docstring)."""
    t = type(seq)
    if t is list or t is tuple or t is dict:
        return True
    known = _NESTED_BY_TYPE.get(t)
    if known is not None and _NESTED_TOKEN[0] == _abc_module.get_cache_token():
        return known
    known = not isinstance(seq, (str, bytes)) and isinstance(seq, (_abc.Sequence, _abc.Mapping, _abc.MappingView))
    if getattr(seq, "__class__", t) is t:     # not a proxy (a mock with a spec) claiming another class
        if _NESTED_TOKEN[0] != _abc_module.get_cache_token():
            _NESTED_BY_TYPE.clear()
            _NESTED_TOKEN[0] = _abc_module.get_cache_token()
        if len(_NESTED_BY_TYPE) < 1024:
            _NESTED_BY_TYPE[t] = known
    return known


is_sequence = is_nested


def _children(x):
    if isinstance(x, _abc.Mapping):
        return [x[k] for k in sorted(x)]
    return list(x)


def _is_composite(x):
    """A composite value (SparseTensor, RaggedTensor, IndexedSlices: framework/composite.py, which imports this
    module, hence the duck typing) or a composite's TypeSpec."""
    return hasattr(x, "_type_spec") and hasattr(x, "_to_components") or hasattr(x, "_component_specs")


def _components(x):
    return list(x._component_specs()) if hasattr(x, "_component_specs") else list(x._to_components())


def flatten(structure, expand_composites=False):
    """The leaves of `structure` in a deterministic order (a composite's components with `expand_composites`)."""
    if expand_composites:
        return [c for leaf in flatten(structure) for c in (_components(leaf) if _is_composite(leaf) else (leaf,))]
    if not is_nested(structure):
        return [structure]
    out = []
    _flatten_into(structure, out)
    return out


def _flatten_into(x, out):
    for c in (x if type(x) is list or type(x) is tuple else _children(x)):
        if is_nested(c):
            _flatten_into(c, out)
        else:
            out.append(c)


def _rebuild(template, children):
    """A container like `template` holding `children` (given in flatten order)."""
    if isinstance(template, _abc.Mapping):
        by_key = dict(zip(sorted(template), children))
        if type(template) is dict:
            return {k: by_key[k] for k in template}  # keeps the template's insertion order
        if isinstance(template, _abc.MutableMapping) and hasattr(template, "default_factory"):
            result = type(template)(template.default_factory)
            result.update((k, by_key[k]) for k in template)
            return result
        return type(template)((k, by_key[k]) for k in template)
    if _is_namedtuple(template):
        return type(template)(*children)
    if type(template) is list or type(template) is tuple:
        return type(template)(children)
    if isinstance(template, (list, tuple)):
        return type(template)(children)
    return list(children)  # ranges, mapping views and other read-only sequences


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """Builds a structure shaped like `structure` whose leaves are `flat_sequence`, in order (with
    `expand_composites`, each composite of `structure` takes as many items as it has components)."""
    if expand_composites:
        flat, packed = list(flat_sequence), []
        for leaf in flatten(structure):
            if _is_composite(leaf):
                count = len(_components(leaf))
                spec = leaf if hasattr(leaf, "_component_specs") else leaf._type_spec
                packed.append(spec._from_components(flat[:count]))
                flat = flat[count:]
            else:
                packed.append(flat.pop(0) if flat else None)
        if flat:
            raise ValueError(f"Could not pack sequence: {len(flat)} items were left over.")
        return pack_sequence_as(structure, packed)
    if not is_nested(flat_sequence):
        raise TypeError(f"Attempted to pack value:\n  {flat_sequence}\ninto a structure, but found "
                        f"incompatible type `{type(flat_sequence)}` instead.")
    if not is_nested(structure):
        if len(flat_sequence) != 1:
            raise ValueError(f"The target structure is of type `{type(structure)}`\n  {structure}\nHowever "
                             f"the input is a sequence ({type(flat_sequence)}) of length "
                             f"{len(flat_sequence)}.\n  {flat_sequence}\nnest cannot guarantee that it "
                             f"is safe to map one to the other.")
        return flat_sequence[0]
    flat = list(flat_sequence)
    atoms = len(flatten(structure))
    if atoms != len(flat):
        raise ValueError(f"Could not pack sequence. Structure had {atoms} atoms, but flat_sequence had "
                         f"{len(flat)} items.  Structure: {structure}, flat_sequence: {flat_sequence}.")
    return _pack(structure, flat, 0)[1]


def _pack(structure, flat, index):
    children = []
    for c in _children(structure):
        if is_nested(c):
            index, packed = _pack(c, flat, index)
            children.append(packed)
        else:
            children.append(flat[index])
            index += 1
    return index, _rebuild(structure, children)


class _Dot:
    """Stands for a leaf in the structure sketches of error messages (`[., (., .)]`)."""

    def __repr__(self):
        return "."


def _sketch(structure):
    return repr(map_structure(lambda _: _Dot(), structure))


def _describe(x):
    return f"type={type(x).__name__} str={x}"


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    """Raises ValueError (TypeError for differing container types) unless both have one structure."""
    try:
        _assert_same(nest1, nest2, check_types)
    except (ValueError, TypeError) as e:
        detail = str(e)
        raise type(e)(f"The two structures don't have the same nested structure.\n\nFirst structure: "
                      f"{_describe(nest1)}\n\nSecond structure: {_describe(nest2)}\n\nMore specifically: "
                      f"{detail}\nEntire first structure:\n{_sketch(nest1)}\nEntire second structure:\n"
                      f"{_sketch(nest2)}") from None


def _same_type(a, b):
    if type(a) is type(b):
        return True
    if isinstance(a, _abc.Mapping) and isinstance(b, _abc.Mapping):
        return True
    if _is_namedtuple(a) and _is_namedtuple(b):
        return type(a).__name__ == type(b).__name__ and type(a)._fields == type(b)._fields
    return False


def _assert_same(a, b, check_types):
    na, nb = is_nested(a), is_nested(b)
    if na != nb:
        seq, other = (a, b) if na else (b, a)
        raise ValueError(f"Substructure \"{_describe(seq)}\" is a sequence, while substructure "
                         f"\"{_describe(other)}\" is not")
    if not na:
        return
    if check_types and not _same_type(a, b):
        raise TypeError(f"The two namedtuples don't have the same sequence type. First structure "
                        f"{_describe(a)} has type {type(a).__name__}, while second structure {_describe(b)} "
                        f"has type {type(b).__name__}")
    if isinstance(a, _abc.Mapping) and isinstance(b, _abc.Mapping) and set(a) != set(b):
        keys_a, keys_b = sorted(a), sorted(b)
        raise ValueError(f"The two dictionaries don't have the same set of keys. First structure has keys "
                         f"{_describe(keys_a)}, while second structure has keys {_describe(keys_b)}")
    ca, cb = _children(a), _children(b)
    if len(ca) != len(cb):
        raise ValueError(f"The two structures don't have the same number of elements. First structure: "
                         f"{_describe(a)}. Second structure: {_describe(b)}")
    for x, y in zip(ca, cb):
        _assert_same(x, y, check_types)


def map_structure(func, *structure, **kwargs):
    """Applies `func` to corresponding leaves; the result has the first structure's shape."""
    if not structure:
        raise ValueError("Must provide at least one structure")
    check_types = kwargs.pop("check_types", True)
    expand = kwargs.pop("expand_composites", False)
    if kwargs:
        names = ", ".join(f"`{k}`" for k in kwargs)
        raise ValueError(f"Only valid keyword arguments are `check_types` and `expand_composites`, not: {names}")
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types)
    flats = [flatten(s, expand_composites=expand) for s in structure]
    return pack_sequence_as(structure[0], [func(*xs) for xs in zip(*flats)], expand_composites=expand)


def flatten_with_paths(structure):
    """`[(path, leaf)]` where a path is a tuple of keys/indices from the root."""
    out = []

    def walk(x, path):
        if not is_nested(x):
            out.append((path, x))
            return
        if isinstance(x, _abc.Mapping):
            for k in sorted(x):
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
