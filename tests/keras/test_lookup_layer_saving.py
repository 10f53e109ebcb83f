"""A model with an adapted lookup layer survives `.keras` and directory saves: the vocabulary goes to
`assets/<layer path>/vocabulary.txt`, as Keras 3 writes it."""
import zipfile

import pytest

import tensorflux as tf

pytest.importorskip("h5py")


@pytest.mark.parametrize("zipped", [True, False])
def test_string_lookup_vocabulary_round_trip(tmp_path, zipped):
    layer = tf.keras.layers.StringLookup()
    layer.adapt(["a", "b", "b", "c", "c", "c"])
    inputs = tf.keras.Input((1,), dtype="string")
    model = tf.keras.Model(inputs, layer(inputs))
    path = str(tmp_path / ("m.keras" if zipped else "m"))
    model.save(path, **({} if zipped else {"zipped": False}))
    if zipped:
        assert "assets/layers/string_lookup/vocabulary.txt" in zipfile.ZipFile(path).namelist()
    else:
        assert (tmp_path / "m" / "assets" / "layers" / "string_lookup" / "vocabulary.txt").is_file()
    loaded = tf.keras.models.load_model(path)
    assert loaded(tf.constant([["c"], ["a"], ["z"]])).numpy().ravel().tolist() == [1, 3, 0]
    assert [str(v) for v in loaded.layers[-1].get_vocabulary()] == ["[UNK]", "c", "b", "a"]
