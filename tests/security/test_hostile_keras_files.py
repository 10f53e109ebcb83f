"""Hostile `.keras` archives and `.weights.h5` files: bit flips, truncation, crafted HDF5 (links to other
files, external and virtual datasets, text and oversized datasets) and crafted class names. A load
either gives the saved model's outputs or raises ValueError/OSError (TensorFlow's classes for a bad file)
— never KeyError, AttributeError or an h5py-internal error — reads no other file, and runs nothing."""
import io
import json
import random
import zipfile

import numpy as np
import pytest

import tensorflux as tf

h5py = pytest.importorskip("h5py")
keras = tf.keras
X = np.random.default_rng(0).standard_normal((3, 3)).astype(np.float32)
ACCEPTED = (ValueError, OSError)


def _model():
    inputs = keras.Input((3,), name="x")
    hidden = keras.layers.Dense(4, activation="relu")(inputs)
    model = keras.Model(inputs, keras.layers.Dense(2)(hidden) * 0.5 + inputs[:, :2])
    model.compile(optimizer="adam", loss="mse")
    model.fit(X, np.zeros((3, 2), np.float32), verbose=0)
    return model


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    directory = tmp_path_factory.mktemp("hostile_keras")
    model = _model()
    model.save(directory / "base.keras")
    model.save_weights(directory / "base.weights.h5")
    return directory, model, np.asarray(model(X))


def _outcome(load, expected):
    """"ok" when the load gives the saved outputs, "differs" when it loads other values (a flipped bit in a
    weight), else the error class; anything but ValueError/OSError fails the test."""
    try:
        out = load()
    except ACCEPTED as e:
        return type(e).__name__
    return "ok" if np.allclose(out, expected) else "differs"


def test_bit_flips_and_truncation_of_keras_archives(saved, tmp_path):
    directory, _, expected = saved
    blob = (directory / "base.keras").read_bytes()
    rng = random.Random(1)
    outcomes = []
    for i in range(60):
        data = bytearray(blob)
        position = rng.randrange(len(data))
        data[position] ^= 1 << rng.randrange(8)
        path = tmp_path / f"flip{i}.keras"
        path.write_bytes(bytes(data))
        outcomes.append(_outcome(lambda: np.asarray(keras.models.load_model(path)(X)), expected))
    for i in range(20):
        path = tmp_path / f"cut{i}.keras"
        path.write_bytes(blob[:rng.randrange(len(blob))])
        assert _outcome(lambda: np.asarray(keras.models.load_model(path)(X)), expected) in ("ValueError", "OSError")
    assert "ValueError" in outcomes


def test_bit_flips_and_truncation_of_weights_files(saved, tmp_path):
    directory, model, expected = saved
    blob = (directory / "base.weights.h5").read_bytes()
    rng = random.Random(2)
    seen = set()
    for i in range(80):
        data = bytearray(blob)
        position = rng.randrange(len(data))
        data[position] ^= 1 << rng.randrange(8)
        path = tmp_path / f"flip{i}.weights.h5"
        path.write_bytes(bytes(data))
        target = _model()

        def load():
            target.load_weights(path)
            return np.asarray(target(X))
        seen.add(_outcome(load, expected))
    for i in range(15):
        path = tmp_path / f"cut{i}.weights.h5"
        path.write_bytes(blob[:rng.randrange(len(blob))])
        with pytest.raises(ACCEPTED):
            _model().load_weights(path)
    assert seen & {"ok", "differs"} and seen & {"ValueError", "OSError"}


def _rewrite(source, target, edit):
    """Copies the HDF5 file `source` to `target`, then lets `edit(file)` change it."""
    target.write_bytes(source.read_bytes())
    with h5py.File(target, "r+") as f:
        edit(f)


def test_crafted_hdf5_is_refused_without_reading_other_files(saved, tmp_path):
    directory, _, _ = saved
    base = directory / "base.weights.h5"
    secret = tmp_path / "secret.h5"
    with h5py.File(secret, "w") as f:
        f.create_dataset("kernel", data=np.full((3, 4), 7.0, np.float32))
    raw_secret = tmp_path / "secret.bin"
    raw_secret.write_bytes(np.full((3, 4), 9.0, np.float32).tobytes())

    def external_link(f):
        del f["layers/dense/vars/0"]
        f["layers/dense/vars/0"] = h5py.ExternalLink(str(secret), "kernel")

    def soft_link(f):
        del f["layers/dense/vars/0"]
        f["layers/dense/vars/0"] = h5py.SoftLink("/layers/dense/vars/1")

    def group_link(f):
        del f["layers/dense"]
        f["layers/dense"] = h5py.ExternalLink(str(secret), "/")

    def external_storage(f):
        del f["layers/dense/vars/0"]
        f.create_dataset("layers/dense/vars/0", shape=(3, 4), dtype="float32", external=[(str(raw_secret), 0, 48)])

    def virtual(f):
        del f["layers/dense/vars/0"]
        layout = h5py.VirtualLayout(shape=(3, 4), dtype="float32")
        layout[:] = h5py.VirtualSource(str(secret), "kernel", shape=(3, 4))
        f.create_virtual_dataset("layers/dense/vars/0", layout)

    def text(f):
        del f["layers/dense/vars/1"]
        f.create_dataset("layers/dense/vars/1", data=np.array([b"__import__('os')"] * 4))

    def huge(f):
        del f["layers/dense/vars/0"]
        f.create_dataset("layers/dense/vars/0", shape=(10 ** 6, 10 ** 6), dtype="float32")   # never allocated

    def extra_variable(f):
        f.create_dataset("layers/dense/vars/2", data=np.zeros(3, np.float32))

    def not_a_group(f):
        del f["layers/dense/vars"]
        f.create_dataset("layers/dense/vars", data=np.zeros(3, np.float32))

    cases = {"external link": (external_link, "not a plain dataset"), "soft link": (soft_link, "not a plain dataset"),
             "linked group": (group_link, "ExternalLink"), "external storage": (external_storage, "not a plain"),
             "virtual dataset": (virtual, "not a plain"), "text dataset": (text, "weights are numbers"),
             "huge dataset": (huge, "could not be loaded"), "extra variable": (extra_variable, "could not be loaded"),
             "dataset for group": (not_a_group, "is not a group")}
    for name, (edit, message) in cases.items():
        path = tmp_path / f"{name.replace(' ', '_')}.weights.h5"
        _rewrite(base, path, edit)
        target = _model()
        before = [w.copy() for w in target.get_weights()]
        with pytest.raises(ValueError, match=message):
            target.load_weights(path)
        for a, b in zip(before, target.get_weights()):      # nothing assigned from a refused file
            np.testing.assert_array_equal(a, b)


def test_crafted_names_in_archives_run_nothing(saved, tmp_path):
    directory, _, _ = saved
    with zipfile.ZipFile(directory / "base.keras") as archive:
        entries = {n: archive.read(n) for n in archive.namelist()}
    config = json.loads(entries["config.json"])
    sentinel = tmp_path / "SENTINEL"
    payloads = [("os", "system"), ("builtins", "eval"), ("builtins", "exec"), ("subprocess", "Popen"),
                ("builtins", "__import__"), ("posix", "system")]
    for module, name in payloads:
        for variant in ("layer", "initializer", "function", "optimizer"):
            edited = json.loads(json.dumps(config))
            reference = {"module": module, "class_name": name, "registered_name": name,
                         "config": {"command": f"touch {sentinel}"}}
            dense = edited["config"]["layers"][1]
            if variant == "layer":
                dense.update(reference)
            elif variant == "initializer":
                dense["config"]["kernel_initializer"] = reference
            elif variant == "function":
                dense["config"]["activation"] = {"module": module, "class_name": "function",
                                                 "config": f"{module}.{name}", "registered_name": "function"}
            else:
                edited["compile_config"]["optimizer"] = reference
            path = tmp_path / "crafted.keras"
            with zipfile.ZipFile(path, "w") as archive:
                for entry, data in entries.items():
                    archive.writestr(entry, json.dumps(edited) if entry == "config.json" else data)
            with pytest.raises(ValueError, match="Could not locate"):
                keras.models.load_model(path)
    assert not sentinel.exists()


def test_archive_entries_are_capped_and_checked(saved, tmp_path):
    directory, _, expected = saved
    with zipfile.ZipFile(directory / "base.keras") as archive:
        entries = {n: archive.read(n) for n in archive.namelist()}

    def variant(name, **changes):
        path = tmp_path / name
        with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for entry, data in dict(entries, **changes).items():
                if data is not None:
                    archive.writestr(entry, data)
        return path
    with pytest.raises(ValueError, match="refused as a zip bomb"):
        keras.models.load_model(variant("bomb.keras", **{"model.weights.h5": b"\0" * (64 << 20)}))
    with pytest.raises(ValueError, match="no `model.weights.h5` entry"):
        keras.models.load_model(variant("npz.keras", **{"model.weights.h5": None, "model.weights.npz": b"x"}))
    with pytest.raises(ValueError, match="not an HDF5 weights file"):
        keras.models.load_model(variant("text.keras", **{"model.weights.h5": b"not hdf5"}))
    with pytest.raises(ValueError, match="names no keras_version"):
        keras.models.load_model(variant("meta.keras", **{"metadata.json": b"{}"}))
    empty = io.BytesIO()
    with h5py.File(empty, "w"):
        pass
    with pytest.raises(ValueError, match="could not be loaded"):
        keras.models.load_model(variant("empty.keras", **{"model.weights.h5": empty.getvalue()}))
    assert np.allclose(keras.models.load_model(variant("same.keras"))(X), expected)    # deflated is fine
