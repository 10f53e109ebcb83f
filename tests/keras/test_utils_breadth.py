"""keras.utils names added for Keras 3.15 (expected values recorded from Keras 3.15 where they are values)."""
import os

import numpy as np
import pytest

import tensorflux as tf

U = tf.keras.utils


def test_pack_and_unpack_match_keras():
    assert U.unpack_x_y_sample_weight((1,)) == (1, None, None)
    assert U.unpack_x_y_sample_weight((1, 2)) == (1, 2, None)
    assert U.unpack_x_y_sample_weight([1, 2, 3]) == (1, 2, 3)
    assert U.pack_x_y_sample_weight(1) == 1 and U.pack_x_y_sample_weight(1, 2) == (1, 2)
    assert U.pack_x_y_sample_weight(1, None, 3) == 1
    with pytest.raises(ValueError, match="Data is expected to be in format"):
        U.unpack_x_y_sample_weight((1, 2, 3, 4))


def test_standardize_dtype_and_is_keras_tensor():
    assert [U.standardize_dtype(d) for d in (int, "int64", np.float32, tf.float16, None, float)] == [
        "int64", "int64", "float32", "float16", "float32", "float32"]
    with pytest.raises(ValueError, match="Invalid dtype: float"):
        U.standardize_dtype("float")
    inputs = tf.keras.Input((2,))
    outputs = tf.keras.layers.Dense(1)(tf.keras.layers.Dense(3)(inputs))
    assert U.is_keras_tensor(inputs) and not U.is_keras_tensor(np.ones(2))
    assert U.get_source_inputs(outputs) == [inputs]


def test_config():
    c = U.Config(a=1)
    c.b = 2
    assert repr(c) == "<Config {'a': 1, 'b': 2}>" and c.to_json() == '{"a": 1, "b": 2}'
    assert c["a"] == 1 and list(c.keys()) == ["a", "b"]
    c.freeze()
    with pytest.raises(ValueError, match="Cannot mutate attribute\\(s\\) because the config is frozen."):
        c.d = 3


def test_split_dataset():
    left, right = U.split_dataset(np.arange(10), left_size=0.8)
    assert [int(x) for x in right] == [8, 9] and len(list(left)) == 8
    left, right = U.split_dataset((np.arange(6), np.arange(6) * 10), right_size=2, shuffle=True, seed=1)
    pairs = [(int(a), int(b)) for a, b in list(left) + list(right)]
    assert sorted(pairs) == [(i, 10 * i) for i in range(6)]
    with pytest.raises(ValueError, match="At least one of the `left_size` or `right_size`"):
        U.split_dataset(np.arange(3))


@pytest.fixture
def text_dir(tmp_path):
    for folder, name, text in (("neg", "a.txt", b"bad movie"), ("neg", "b.txt", b"awful"), ("pos", "c.txt", b"great")):
        os.makedirs(tmp_path / folder, exist_ok=True)
        (tmp_path / folder / name).write_bytes(text)
    return str(tmp_path)


def test_text_dataset_from_directory_matches_keras(text_dir, capsys):
    ds = U.text_dataset_from_directory(text_dir, batch_size=2, shuffle=False)
    assert "Found 3 files belonging to 2 classes." in capsys.readouterr().out
    assert ds.class_names == ["neg", "pos"]
    assert [(x.numpy().tolist(), y.numpy().tolist()) for x, y in ds] == [
        ([b"bad movie", b"awful"], [0, 0]), ([b"great"], [1])]
    ds = U.text_dataset_from_directory(text_dir, batch_size=None, shuffle=False, label_mode="categorical",
                                       max_length=3, verbose=False)
    assert [(x.numpy(), y.numpy().tolist()) for x, y in ds] == [
        (b"bad", [1.0, 0.0]), (b"awf", [1.0, 0.0]), (b"gre", [0.0, 1.0])]
    ds = U.text_dataset_from_directory(text_dir, batch_size=None, shuffle=False, label_mode="binary", verbose=False)
    assert [(y.numpy().tolist(), y.dtype) for _, y in ds] == [([0.0], tf.float32), ([0.0], tf.float32),
                                                             ([1.0], tf.float32)]
    train, val = U.text_dataset_from_directory(text_dir, batch_size=None, validation_split=0.34, subset="both",
                                               seed=3, verbose=False)
    assert len(list(train)) == 2 and len(list(val)) == 1


def test_image_dataset_from_directory(tmp_path):
    for folder, value in (("a", 10), ("b", 200)):
        os.makedirs(tmp_path / folder)
        png = tf.io.encode_png(tf.fill([4, 6, 3], tf.constant(value, tf.uint8))) if hasattr(tf.io, "encode_png") \
            else None
        if png is None:
            pytest.skip("tf.io.encode_png is not available")
        (tmp_path / folder / "x.png").write_bytes(png.numpy())
    ds = U.image_dataset_from_directory(str(tmp_path), image_size=(2, 3), batch_size=2, shuffle=False, verbose=False)
    images, labels = next(iter(ds))
    assert images.shape.as_list() == [2, 2, 3, 3] and images.dtype == tf.float32
    assert labels.numpy().tolist() == [0, 1] and images.numpy()[1].max() == 200.0


def test_progbar_shows_values_as_keras_3(capsys):
    bar = U.Progbar(4, interval=0)
    bar.update(2, [("loss", 1.0)])
    bar.update(4, [("loss", 3.0)])
    out = capsys.readouterr().out
    assert "4/4" in out and "loss: 3.0000" in out   # Keras 3: not averaged unless stateless
    averaged = U.Progbar(4, interval=0, stateless_metrics=["loss"])
    averaged.update(2, [("loss", 1.0)])
    averaged.update(4, [("loss", 3.0)])
    assert "loss: 2.0000" in capsys.readouterr().out
    U.disable_interactive_logging()
    try:
        assert not U.is_interactive_logging_enabled()
        U.Progbar(2).update(2, [("loss", 1.0)])
        assert capsys.readouterr().out == ""
    finally:
        U.enable_interactive_logging()


def test_images_and_arrays():
    assert U.img_to_array(np.ones((2, 2))).shape == (2, 2, 1)
    assert U.img_to_array(np.ones((2, 2, 3)), data_format="channels_first").shape == (3, 2, 2)
    assert U.img_to_array(np.ones((2, 2, 3))).dtype == np.float32
    try:
        import PIL  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="requires PIL"):
            U.array_to_img(np.ones((2, 2, 3)))


def test_model_to_dot_and_plot_model(tmp_path):
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2, name="hidden"),
                                 tf.keras.layers.Dense(1, name="out")])
    dot = U.model_to_dot(model, show_shapes=True)
    text = dot.to_string()
    assert text.startswith("digraph G {") and "hidden (Dense)" in text and "->" in text
    U.plot_model(model, to_file=str(tmp_path / "m.dot"))
    assert (tmp_path / "m.dot").read_text() == text.replace("|output: (None, 2)", "").replace("|output: (None, 1)", "")


def test_get_file_uses_the_cache_and_checks_the_hash(tmp_path):
    source = tmp_path / "data.bin"
    source.write_bytes(b"payload")
    origin = source.as_uri()
    path = U.get_file("data.bin", origin=origin, cache_dir=str(tmp_path / "cache"))
    assert open(path, "rb").read() == b"payload"
    import hashlib
    good = hashlib.sha256(b"payload").hexdigest()
    assert U.get_file("data.bin", origin=origin, file_hash=good, cache_dir=str(tmp_path / "cache")) == path
    with pytest.raises(ValueError, match="Incomplete or corrupted file detected"):
        U.get_file("other.bin", origin=origin, file_hash="0" * 64, cache_dir=str(tmp_path / "cache"))
    with pytest.raises(ValueError, match="plain file name"):
        U.get_file("../escape", origin=origin, cache_dir=str(tmp_path / "cache"))


def test_sequence_and_legacy():
    assert U.Sequence is U.PyDataset
    config = U.legacy.serialize_keras_object(tf.keras.constraints.MaxNorm(3))
    assert config == {"class_name": "MaxNorm", "config": {"max_value": 3, "axis": 0}}
    restored = U.legacy.deserialize_keras_object(config, module_objects={"MaxNorm": tf.keras.constraints.MaxNorm})
    assert restored.max_value == 3
