"""tf.Module: naming, name scopes, and the deterministic walk that finds variables and submodules."""
import pytest

import tensorflux as tf


class Dense(tf.Module):
    def __init__(self, n, name=None):
        super().__init__(name=name)
        self.w = tf.Variable([[1.0] * n] * 2, name="w")
        self.b = tf.Variable([0.0] * n, name="b", trainable=False)

    @tf.Module.with_name_scope
    def make(self):
        return tf.Variable(1, name="inner")


class MLP(tf.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        with self.name_scope:
            self.layers = [Dense(3), Dense(4, name="second")]
            self.d = {"z": Dense(1), "a": tf.Variable(1.0, name="v")}
            self.extra = (tf.Variable(2, name="t"),)


def test_names():
    assert tf.Module().name == "module" and MLP().name == "mlp" and tf.Module(name="x").name == "x"

    class MyHTTPModule2(tf.Module):
        pass
    assert MyHTTPModule2().name == "my_http_module2"


@pytest.mark.parametrize("bad", ["a b", "1abc", "a/b", ""])
def test_invalid_names(bad):
    with pytest.raises(ValueError, match=f"'{bad}' is not a valid module name. Module names must be valid Python "
                                         f"identifiers"):
        tf.Module(name=bad)


def test_walk_order_matches_tensorflow():
    m = MLP()
    assert m.name_scope.name == "mlp/"
    assert [v.name for v in m.variables] == ["mlp/v:0", "mlp/t:0", "mlp/b:0", "mlp/w:0", "mlp/b:0", "mlp/w:0",
                                             "mlp/b:0", "mlp/w:0"]
    assert [v.name for v in m.trainable_variables] == ["mlp/v:0", "mlp/t:0", "mlp/w:0", "mlp/w:0", "mlp/w:0"]
    assert [v.name for v in m.non_trainable_variables] == ["mlp/b:0"] * 3
    assert [s.name for s in m.submodules] == ["dense", "dense", "second"]
    assert m.submodules[0] is m.d["z"] and m.submodules[1] is m.layers[0]
    assert isinstance(m.variables, tuple) and isinstance(m.submodules, tuple)


def test_each_object_reported_once_and_cycles_end():
    class C(tf.Module):
        pass
    c = C()
    c.v = tf.Variable(1)
    c.v2 = c.v
    assert len(c.variables) == 1
    m = MLP()
    c.m = m
    c.mm = m
    assert len(c.submodules) == 4
    c.me = c  # a module holding itself
    m.back = c
    assert len(c.submodules) == 4 and len(c.variables) == 9


def test_name_scope_and_with_name_scope():
    m = MLP()
    assert m.layers[0].make().name == "mlp/dense/inner:0"
    with m.name_scope as scope:
        assert scope == "mlp/"
        assert tf.Variable(1, name="x").name == "mlp/x:0"
    assert tf.Variable(1, name="x").name == "x:0"
    with tf.name_scope("outer"):
        mo = tf.Module()
        assert mo.name == "module" and mo.name_scope.name == "outer/module/"
    with tf.name_scope("elsewhere"):
        with mo.name_scope:  # re-enters its own absolute scope
            assert tf.Variable(1, name="q").name == "outer/module/q:0"


def test_flatten_with_paths_and_predicate():
    m = MLP()
    paths = [p for p, _ in m._flatten(predicate=lambda x: isinstance(x, tf.Variable), with_path=True)]
    assert paths[:2] == [("d", "a"), ("extra", 0)]
    assert ("layers", 1, "w") in paths
    assert list(m._flatten(recursive=False, predicate=lambda x: isinstance(x, tf.Module))) == \
        [m.d["z"], m.layers[0], m.layers[1]]


def test_repr_is_the_default_object_repr():
    m = MLP()
    assert repr(m).startswith("<") and "MLP object at 0x" in repr(m) and str(m) == repr(m)
