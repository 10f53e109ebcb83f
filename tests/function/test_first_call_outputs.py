"""A function returning a plain tuple of tensors packs its outputs as a tuple directly
(`ConcreteFunction._tuple_output`); any other structure is packed by nest as before."""
import collections

import tensorflux as tf


def structures(fn, *args):
    cf = tf.function(fn).get_concrete_function(*args)
    first, second = cf(*args), cf(*args)      # interpreted, then generated code
    return cf, first, second


def test_a_plain_tuple_is_a_tuple_of_eager_tensors():
    cf, first, second = structures(lambda x: (x * 2.0, tf.reduce_sum(x), x), tf.constant([1.0, 2.0]))
    assert cf._tuple_output
    for out in (first, second):
        assert type(out) is tuple and len(out) == 3
        assert out[0].numpy().tolist() == [2.0, 4.0] and float(out[1]) == 3.0 and out[2].numpy().tolist() == [1.0, 2.0]


def test_nested_named_and_mixed_structures_keep_their_shape():
    pair = collections.namedtuple("pair", "a b")
    x = tf.constant([1.0, 2.0])
    cases = [
        (lambda x: (x, [x + 1.0]), lambda out: type(out) is tuple and type(out[1]) is list),
        (lambda x: pair(x, x * 3.0), lambda out: type(out) is pair and out.b.numpy().tolist() == [3.0, 6.0]),
        (lambda x: (x, 7, "s"), lambda out: out[1:] == (7, "s")),
        (lambda x: [x, x], lambda out: type(out) is list and len(out) == 2),
        (lambda x: (x,), lambda out: type(out) is tuple and len(out) == 1),
        (lambda x: {"k": x}, lambda out: list(out) == ["k"]),
    ]
    for fn, check in cases:
        cf, first, second = structures(fn, x)
        assert not cf._tuple_output or type(cf._trace.structured_outputs) is tuple
        assert check(first) and check(second), fn
