"""keras.callbacks.TensorBoard writes Keras 3's log layout (keras/tensorboard.py).

The expected layout was recorded from Keras 3.15 on TensorFlow 2.21 fitting the same model (2 epochs,
48 training and 16 validation samples in batches of 16, histogram_freq=1):

    train/       keras (graph_keras_model, step 0), then per epoch: epoch_accuracy, epoch_loss,
                 epoch_learning_rate (scalars) and sequential/dense{,_1}/{kernel,bias}/histogram (histograms)
    validation/  per epoch: evaluation_accuracy_vs_iterations, evaluation_loss_vs_iterations at the
                 optimizer's iterations (3, 6), then epoch_accuracy, epoch_loss at the epoch
"""
import os

import numpy as np
import pytest

import tensorflux as tf

keras = tf.keras

TRAIN_TAGS_PER_EPOCH = ["epoch_accuracy", "epoch_loss", "epoch_learning_rate",
                        "sequential/dense/kernel/histogram", "sequential/dense/bias/histogram",
                        "sequential/dense_1/kernel/histogram", "sequential/dense_1/bias/histogram"]
VALIDATION_TAGS_PER_EPOCH = ["evaluation_accuracy_vs_iterations", "evaluation_loss_vs_iterations",
                             "epoch_accuracy", "epoch_loss"]


@pytest.fixture(autouse=True)
def _fresh_names():
    keras.backend.clear_session()   # layer names (and so weight paths) start again at "dense"


def _events(directory):
    """(step, tag, plugin, value) of every summary event of the one event file in `directory`."""
    from test_summary import read_events
    (name,) = [n for n in os.listdir(directory) if n.startswith("events.out.tfevents.")]
    events = read_events(os.path.join(directory, name))
    assert events[0]["file_version"] == "brain.Event:2"
    return [(e["step"], e["tag"], e["plugin"], e["value"]) for e in events[1:]]


def _model():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(3)])
    model.compile(optimizer=keras.optimizers.Adam(0.01),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    return model


def _data():
    rng = np.random.default_rng(0)
    return rng.normal(size=(64, 4)).astype("float32"), rng.integers(0, 3, size=(64,))


def test_fit_writes_keras_3_layout(tmp_path):
    x, y = _data()
    model = _model()
    history = model.fit(x, y, epochs=2, batch_size=16, validation_split=0.25, verbose=0,
                        callbacks=[keras.callbacks.TensorBoard(log_dir=str(tmp_path), histogram_freq=1)])
    assert sorted(os.listdir(tmp_path)) == ["train", "validation"]
    train = _events(tmp_path / "train")
    assert [(s, t, p) for s, t, p, _ in train[:1]] == [(0, "keras", "graph_keras_model")]
    config = train[0][3][()].decode()
    assert '"class_name": "Sequential"' in config and '"module": "keras"' in config
    expected = [(epoch, tag) for epoch in (0, 1) for tag in TRAIN_TAGS_PER_EPOCH]
    assert [(s, t) for s, t, _, _ in train[1:]] == expected
    by_tag = {(s, t): (p, v) for s, t, p, v in train}
    for epoch in (0, 1):
        assert by_tag[(epoch, "epoch_loss")][0] == "scalars"
        assert by_tag[(epoch, "epoch_loss")][1] == pytest.approx(history.history["loss"][epoch], rel=1e-6)
        assert by_tag[(epoch, "epoch_accuracy")][1] == pytest.approx(history.history["accuracy"][epoch], rel=1e-6)
        assert by_tag[(epoch, "epoch_learning_rate")][1] == pytest.approx(0.01)
        plugin, buckets = by_tag[(epoch, "sequential/dense/kernel/histogram")]
        assert plugin == "histograms" and buckets.shape == (30, 3) and buckets.dtype == np.float64
        assert buckets[:, 2].sum() == 32  # the 4x8 kernel's values
    validation = _events(tmp_path / "validation")
    assert [(s, t) for s, t, _, _ in validation] == \
        [(3, t) for t in VALIDATION_TAGS_PER_EPOCH[:2]] + [(0, t) for t in VALIDATION_TAGS_PER_EPOCH[2:]] + \
        [(6, t) for t in VALIDATION_TAGS_PER_EPOCH[:2]] + [(1, t) for t in VALIDATION_TAGS_PER_EPOCH[2:]]
    val = {(s, t): v for s, t, _, v in validation}
    assert val[(1, "epoch_loss")] == pytest.approx(history.history["val_loss"][1], rel=1e-6)
    assert val[(6, "evaluation_loss_vs_iterations")] == pytest.approx(history.history["val_loss"][1], rel=1e-6)


def test_defaults_write_no_histograms_and_no_batch_hooks(tmp_path):
    x, y = _data()
    callback = keras.callbacks.TensorBoard(log_dir=str(tmp_path))
    assert "on_train_batch_end" not in vars(callback)   # fit converts no batch logs for it
    _model().fit(x, y, epochs=1, batch_size=16, verbose=0, callbacks=[callback])
    assert sorted(os.listdir(tmp_path)) == ["train"]
    tags = [t for _, t, _, _ in _events(tmp_path / "train")]
    assert tags == ["keras", "epoch_accuracy", "epoch_loss", "epoch_learning_rate"]


def test_update_freq_writes_batch_scalars(tmp_path):
    x, y = _data()
    callback = keras.callbacks.TensorBoard(log_dir=str(tmp_path), update_freq=2, write_graph=False)
    _model().fit(x[:48], y[:48], epochs=1, batch_size=8, verbose=0, callbacks=[callback])
    events = _events(tmp_path / "train")
    batch = [(s, t) for s, t, _, _ in events if t.startswith("batch_")]
    assert batch == [(s, t) for s in (2, 4, 6) for t in ("batch_accuracy", "batch_loss")]


def test_write_images_and_profile_batch_trace(tmp_path):
    x, y = _data()
    callback = keras.callbacks.TensorBoard(log_dir=str(tmp_path), histogram_freq=1, write_images=True,
                                           write_graph=False, profile_batch=2)
    _model().fit(x, y, epochs=1, batch_size=16, verbose=0, callbacks=[callback])
    events = _events(tmp_path / "train")
    plugins = {t: p for _, t, p, _ in events}
    assert plugins["sequential/dense/kernel/image"] == "images"
    assert plugins["batch_2"] == "graph_run_metadata_graph"
    image = {t: v for _, t, _, v in events}["sequential/dense/kernel/image"]
    assert image[:2].tolist() == [b"8", b"4"]   # the 4x8 kernel shown 8 wide, 4 high


def test_bad_arguments():
    with pytest.raises(ValueError, match="update_freq"):
        keras.callbacks.TensorBoard(update_freq="sometimes")
    with pytest.raises(ValueError, match="profile_batch"):
        keras.callbacks.TensorBoard(profile_batch=(5, 2))
    with pytest.raises(NotImplementedError, match="embeddings_freq"):
        keras.callbacks.TensorBoard(embeddings_freq=1)
