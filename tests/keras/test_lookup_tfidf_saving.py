"""TF-IDF lookup layers keep their IDF weights in `.keras` and `.weights.h5` files where Keras 3.15 puts
them: a dataset `idf_weights` in the layer's `vars` group (TextVectorization: in its own group and in its
`_lookup_layer`'s), beside the vocabulary asset. Expected outputs recorded with TensorFlow 2.21 + Keras 3.15
(the same layers adapted on the same text, saved, loaded and called)."""
import io
import zipfile

import numpy as np
import pytest

import tensorflux as tf

h5py = pytest.importorskip("h5py")
keras = tf.keras

ADAPT = ["the brain is wider than the sky", "for put them side by side", "the one the other"]
# Keras 3.15's outputs of the loaded models for these inputs (rounded to 6 decimals).
TV_INPUT = [["the brain is wider"], ["side by side by the sea"]]
TV_EXPECTED = [[0.0, 0.693147, 0.0, 0.0, 0.916291, 0.0, 0.0, 0.0, 0.0, 0.0, 0.916291, 0.0, 0.0, 0.0, 0.0, 0.0,
                0.0, 0.0, 0.0, 0.0, 0.916291, 0.916291, 0.0, 0.0, 0.0, 0.0, 0.916291, 0.916291],
               [2.724078, 0.693147, 1.832582, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.832582,
                0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.916291, 1.832582, 0.0, 0.0]]
SL_EXPECTED = [[0.647567, 0.510826, 0.0, 0.0, 0.693147], [0.0, 1.021651, 0.693147, 0.0, 0.0]]
IL_EXPECTED = [[1.5, 0.5, 1.5, 0.0], [0.0, 0.5, 0.0, 5.0]]


def _text_model():
    tv = keras.layers.TextVectorization(output_mode="tf_idf", ngrams=2)
    tv.adapt(tf.constant(ADAPT))
    inputs = keras.Input((1,), dtype="string")
    return keras.Model(inputs, tv(inputs))


def _string_model():
    sl = keras.layers.StringLookup(output_mode="tf_idf")
    sl.adapt(tf.constant([["a", "b", "a"], ["c", "a", "d"]]))
    return keras.Sequential([keras.Input((3,), dtype="string"), sl])


def _integer_model():
    il = keras.layers.IntegerLookup(output_mode="tf_idf", vocabulary=[3, 5, 7], idf_weights=[0.5, 1.5, 2.5])
    return keras.Sequential([keras.Input((3,), dtype="int64"), il])


CASES = {"tv": (_text_model, tf.constant(TV_INPUT), TV_EXPECTED,
                {"layers/text_vectorization/vars/idf_weights": 28,
                 "layers/text_vectorization/_lookup_layer/vars/idf_weights": 28}),
         "sl": (_string_model, tf.constant([["a", "b", "zz"], ["d", "a", "a"]]), SL_EXPECTED,
                {"layers/string_lookup/vars/idf_weights": 5}),
         "il": (_integer_model, tf.constant([[3, 5, 9], [7, 7, 3]], tf.int64), IL_EXPECTED,
                {"layers/integer_lookup/vars/idf_weights": 4})}


def _datasets(h5file):
    found = {}

    def note(name, obj):        # returns None: visititems stops at the first value returned
        if isinstance(obj, h5py.Dataset):
            found[name] = obj.shape
    h5file.visititems(note)
    return found


@pytest.mark.parametrize("case", sorted(CASES))
def test_tfidf_keras_file_layout_and_round_trip(tmp_path, case):
    make, inputs, expected, layout = CASES[case]
    model = make()
    path = str(tmp_path / f"{case}.keras")
    model.save(path)
    with zipfile.ZipFile(path) as archive:
        with h5py.File(io.BytesIO(archive.read("model.weights.h5")), "r") as f:
            assert _datasets(f) == {name: (size,) for name, size in layout.items()}
    loaded = keras.models.load_model(path)
    np.testing.assert_allclose(loaded(inputs).numpy(), expected, atol=2e-6)


def test_tfidf_weights_file_round_trip(tmp_path):
    model = _string_model()
    path = str(tmp_path / "m.weights.h5")
    model.save_weights(path)
    with h5py.File(path, "r") as f:
        np.testing.assert_allclose(f["layers/string_lookup/vars/idf_weights"][()],
                                   [0.6475669, 0.5108256, 0.6931472, 0.6931472, 0.6931472], rtol=1e-6)
    other = _string_model()
    other.layers[-1].idf_weights = np.zeros(5, np.float32)
    other.load_weights(path)
    np.testing.assert_allclose(other(tf.constant([["a", "b", "zz"], ["d", "a", "a"]])).numpy(), SL_EXPECTED,
                               atol=2e-6)


def test_tfidf_idf_dataset_must_be_plain_1d_numbers(tmp_path):
    model = _string_model()
    path = str(tmp_path / "m.weights.h5")
    model.save_weights(path)
    with h5py.File(path, "r+") as f:
        del f["layers/string_lookup/vars/idf_weights"]
        f["layers/string_lookup/vars"].create_dataset("idf_weights", data=np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match=r"idf_weights' of .* must be a 1-D numeric array"):
        _string_model().load_weights(path)


def test_tfidf_missing_idf_dataset_is_reported(tmp_path):
    model = _string_model()
    path = str(tmp_path / "m.weights.h5")
    model.save_weights(path)
    with h5py.File(path, "r+") as f:
        del f["layers/string_lookup/vars/idf_weights"]
    with pytest.raises(ValueError, match=r"expected the array\(s\) \['idf_weights'\]"):
        _string_model().load_weights(path)
