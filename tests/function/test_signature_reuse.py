"""tf.function of a closure made afresh reuses its code's inspect.Signature (inspect.signature is ~10 µs
of building a Function); defaults are matched by identity, so equal but different defaults keep theirs."""
import tensorflux as tf
from tensorflux._src.function import polymorphic


def _make(default):
    def g(x, n=default):
        return x * n
    return g


def test_defaults_that_compare_equal_keep_their_own_types_and_signs():
    assert tf.function(_make(2))(tf.constant(3)).dtype == tf.int32
    assert tf.function(_make(2.0))(tf.constant(3.0)).dtype == tf.float32
    assert str(polymorphic._signature(_make(-0.0))) == "(x, n=-0.0)"
    assert str(polymorphic._signature(_make(0.0))) == "(x, n=0.0)"
    assert str(polymorphic._signature(_make(True))) == "(x, n=True)"
    assert str(polymorphic._signature(_make(1))) == "(x, n=1)"


def test_a_remade_closure_reuses_the_signature():
    def make():
        def g(x, n=3.5):
            return x + n
        return g
    assert polymorphic._signature(make()) is polymorphic._signature(make())


def test_functions_with_annotations_wrapping_or_keyword_defaults_are_looked_up_each_time():
    def annotated(x: int):
        return x

    def kw(x, *, y=1):
        return x

    def wrapper(x):
        return x
    wrapper.__wrapped__ = annotated
    for fn in (annotated, kw, wrapper):
        assert polymorphic._signature(fn) is not polymorphic._signature(fn)
    assert str(polymorphic._signature(annotated)) == "(x: int)"
    assert str(polymorphic._signature(kw)) == "(x, *, y=1)"
    assert str(polymorphic._signature(wrapper)) == "(x: int)"
