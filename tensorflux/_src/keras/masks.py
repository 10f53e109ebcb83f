"""Keras masks carried by tensors: `tensor._keras_mask`, the boolean `(batch, time)` tensor saying which
timesteps are real data (True) and which are padding (False).

Keras 3 sets the mask as an attribute of a layer's output, and the next layer that accepts a `mask`
argument receives it. tensorflux's tensors take no new attributes, so:
- an eager output with a mask is re-wrapped as a `MaskedEagerTensor` — an EagerTensor that shares the
  value (no copy) and has a `_keras_mask` slot, so `out._keras_mask` reads as in Keras;
- a symbolic (graph) tensor, met while a `tf.function` or a functional model is traced, keeps its mask
  in a side table keyed by the tensor's identity (a weak reference drops the entry with the tensor);
- a KerasTensor (the functional API) holds its mask as a plain attribute.
`get_mask` reads all three.
"""
import weakref

import tensorflux as tf

__all__ = ["MaskedEagerTensor", "get_mask", "with_mask"]

_EagerTensor = type(tf.constant(0))
_SYMBOLIC = {}   # id(graph tensor) -> (weak reference to it, its mask)


class MaskedEagerTensor(_EagerTensor):
    """An eager tensor carrying a Keras mask (`_keras_mask`); otherwise the same tensor."""

    __slots__ = ("_keras_mask",)


def get_mask(x):
    """The Keras mask `x` carries, or None."""
    mask = getattr(x, "_keras_mask", None)
    if mask is None and isinstance(x, tf.Tensor):
        entry = _SYMBOLIC.get(id(x))
        if entry is not None and entry[0]() is x:
            mask = entry[1]
    return mask


def _forget(key):
    def drop(_):
        _SYMBOLIC.pop(key, None)
    return drop


def with_mask(x, mask):
    """`x` carrying `mask`: the same object, except that an eager tensor comes back re-wrapped."""
    if isinstance(x, _EagerTensor):
        masked = MaskedEagerTensor(x._value)
        masked._keras_mask = mask
        return masked
    if isinstance(x, tf.Tensor):
        key = id(x)
        _SYMBOLIC[key] = (weakref.ref(x, _forget(key)), mask)
        return x
    if x is not None and not isinstance(x, tf.Variable):
        x._keras_mask = mask         # a KerasTensor
    return x
