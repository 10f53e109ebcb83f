"""keras.constraints against Keras 3.15 (values recorded by running the same calls under Keras 3.15)."""
import numpy as np
import pytest

import tensorflux as tf

C = tf.keras.constraints
W = np.array([[1.0, -2.0, 3.0], [4.0, 0.5, -6.0]], np.float32)

# Keras 3.15: constraint(W).tolist()
RECORDED = {
    "MaxNorm(2.0)": [[0.4850712716579437, -1.940285086631775, 0.8944271802902222],
                     [1.940285086631775, 0.4850712716579437, -1.7888543605804443]],
    "MaxNorm(2.0, axis=1)": [[0.5345224738121033, -1.0690449476242065, 1.603567361831665],
                             [1.1067432165145874, 0.13834290206432343, -1.6601147651672363]],
    "NonNeg()": [[1.0, 0.0, 3.0], [4.0, 0.5, 0.0]],
    "UnitNorm()": [[0.24253563582897186, -0.9701425433158875, 0.4472135901451111],
                   [0.9701425433158875, 0.24253563582897186, -0.8944271802902222]],
    "UnitNorm(axis=1)": [[0.26726123690605164, -0.5345224738121033, 0.8017836809158325],
                         [0.5533716082572937, 0.06917145103216171, -0.8300573825836182]],
    "MinMaxNorm(1.0, 3.0, rate=0.5)": [[0.8638034462928772, -2.0, 2.170820474624634],
                                       [3.455213785171509, 0.5, -4.341640949249268]],
    "MinMaxNorm(0.0, 2.0, axis=1)": [[0.5345224738121033, -1.0690449476242065, 1.603567361831665],
                                     [1.1067432165145874, 0.13834290206432343, -1.6601147651672363]],
    "Constraint()": W.tolist(),
}
MAKERS = {
    "MaxNorm(2.0)": lambda: C.MaxNorm(2.0), "MaxNorm(2.0, axis=1)": lambda: C.MaxNorm(2.0, axis=1),
    "NonNeg()": C.NonNeg, "UnitNorm()": C.UnitNorm, "UnitNorm(axis=1)": lambda: C.UnitNorm(axis=1),
    "MinMaxNorm(1.0, 3.0, rate=0.5)": lambda: C.MinMaxNorm(1.0, 3.0, rate=0.5),
    "MinMaxNorm(0.0, 2.0, axis=1)": lambda: C.MinMaxNorm(0.0, 2.0, axis=1), "Constraint()": C.Constraint,
}


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_values_match_keras(name):
    result = MAKERS[name]()(tf.constant(W))
    np.testing.assert_allclose(np.asarray(result), RECORDED[name], rtol=1e-6)


def test_configs_and_serialization_match_keras():
    assert C.MinMaxNorm(1.0, 3.0, rate=0.5).get_config() == {"min_value": 1.0, "max_value": 3.0, "rate": 0.5,
                                                              "axis": 0}
    assert C.serialize(C.MaxNorm(3)) == {"module": "keras.constraints", "class_name": "MaxNorm",
                                         "config": {"max_value": 3, "axis": 0}, "registered_name": None}
    assert C.serialize(C.NonNeg()) == {"module": "keras.constraints", "class_name": "NonNeg", "config": {},
                                       "registered_name": None}
    restored = C.deserialize(C.serialize(C.UnitNorm(axis=1)))
    assert isinstance(restored, C.UnitNorm) and restored.axis == 1
    assert C.get({"class_name": "MinMaxNorm", "config": {"min_value": 0.5}}).get_config() == {
        "min_value": 0.5, "max_value": 1.0, "rate": 1.0, "axis": 0}


def test_get_accepts_names_aliases_and_callables():
    assert C.max_norm is C.MaxNorm and C.non_neg is C.NonNeg and C.unit_norm is C.UnitNorm
    assert C.min_max_norm is C.MinMaxNorm
    for name, cls in (("max_norm", C.MaxNorm), ("MaxNorm", C.MaxNorm), ("non_neg", C.NonNeg),
                      ("unit_norm", C.UnitNorm), ("NonNeg", C.NonNeg)):
        assert isinstance(C.get(name), cls)
    assert C.get(None) is None
    fn = lambda w: w  # noqa: E731
    assert C.get(fn) is fn
    for bad in ("nope", 3):
        with pytest.raises(ValueError, match=f"Could not interpret constraint identifier: {bad}"):
            C.get(bad)


def test_constraints_trace_and_keep_dtype():
    @tf.function
    def project(w):
        return C.MaxNorm(1.0)(w)

    w = tf.constant(W.astype(np.float64))
    out = project(w)
    assert out.dtype == tf.float64
    np.testing.assert_allclose(np.linalg.norm(out.numpy(), axis=0), [1.0, 1.0, 1.0], rtol=1e-6)
