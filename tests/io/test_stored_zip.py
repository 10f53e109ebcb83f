"""The `.keras` archive writer and reader of keras/saving/stored_zip.py: archives byte-identical to what
`zipfile.ZipFile(f, "w").writestr` (Keras 3's writer) makes, zip64 rules included; the weights entry
written and read in place through a seekable window; its checksum verified before any weight is
assigned."""
import os
import time
import zipfile
from unittest import mock

import numpy as np
import pytest

from tensorflux._src.keras.saving.stored_zip import ByteWindow, StoredZipWriter, crc32_of, entry_window

ENTRIES = [("metadata.json", b'{"keras_version": "3.15.1"}'), ("config.json", b"x" * 2900),
           ("model.weights.h5", bytes(range(256)) * 20), ("assets/\u00fc/vocabulary.txt", b"[UNK]\na")]


def _by_zipfile(path):
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in ENTRIES:
            archive.writestr(name, data)


def _by_writer(path, streamed="model.weights.h5"):
    with open(path, "w+b") as f:
        archive = StoredZipWriter(f)
        for name, data in ENTRIES:
            if name != streamed:
                archive.writestr(name, data)
                continue
            with archive.stream_entry(name, len(data)) as window:
                # as h5py does: write past the end, come back to patch the start, end with truncate
                window.write(b"\xff" * (len(data) + 100))
                window.seek(0)
                window.write(data[:100])
                window.seek(100)
                window.write(data[100:])
                window.truncate(len(data))
        archive.close()


@pytest.mark.parametrize("zip64_limit", [None, 3000])
def test_archives_are_byte_identical_to_zipfiles(tmp_path, zip64_limit):
    # One clock for both writers (entries carry their modification time). A lowered zip64 limit takes
    # both through zip64 local headers, central-directory extras and the zip64 end records.
    now = time.localtime(time.time())
    with mock.patch("time.localtime", lambda *_: now), \
            mock.patch.object(zipfile, "ZIP64_LIMIT", zip64_limit or zipfile.ZIP64_LIMIT):
        _by_zipfile(tmp_path / "reference.zip")
        _by_writer(tmp_path / "ours.zip")
    assert (tmp_path / "ours.zip").read_bytes() == (tmp_path / "reference.zip").read_bytes()
    with zipfile.ZipFile(tmp_path / "ours.zip") as archive:
        assert archive.testzip() is None
        assert [(n, archive.read(n)) for n in archive.namelist()] == ENTRIES


def test_entry_windows_read_stored_entries_in_place(tmp_path):
    _by_writer(tmp_path / "a.zip")
    fd = os.open(tmp_path / "a.zip", os.O_RDONLY)
    try:
        with zipfile.ZipFile(tmp_path / "a.zip") as archive:
            info = archive.getinfo("model.weights.h5")
            start, size = entry_window(fd, archive, info, "a.zip")
        assert crc32_of(fd, start, size) == info.CRC
        window = ByteWindow(fd, start, size)
        window.seek(-10, os.SEEK_END)
        assert window.read() == ENTRIES[2][1][-10:]
        buffer = np.empty(300, np.uint8)
        window.seek(0)
        assert window.readinto(buffer) == 300 and bytes(buffer) == ENTRIES[2][1][:300]
        with pytest.raises(OSError):
            window.write(b"x")
    finally:
        os.close(fd)


def test_compressed_and_damaged_entries(tmp_path):
    deflated = tmp_path / "deflated.zip"
    with zipfile.ZipFile(deflated, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("model.weights.h5", b"a" * 1000)
    fd = os.open(deflated, os.O_RDONLY)
    try:
        with zipfile.ZipFile(deflated) as archive:
            assert entry_window(fd, archive, archive.getinfo("model.weights.h5"), "d") is None   # inflated instead
    finally:
        os.close(fd)
    _by_writer(tmp_path / "a.zip")
    blob = bytearray((tmp_path / "a.zip").read_bytes())
    with zipfile.ZipFile(tmp_path / "a.zip") as archive:
        offset = archive.getinfo("model.weights.h5").header_offset
    renamed = bytearray(blob)
    renamed[offset + 30] ^= 1                       # first letter of the local header's name
    (tmp_path / "renamed.zip").write_bytes(bytes(renamed))
    cut = tmp_path / "cut.zip"
    cut.write_bytes(bytes(blob))
    for path, message in ((tmp_path / "renamed.zip", "names another file"), (cut, "runs past the end")):
        with zipfile.ZipFile(path) as archive:
            info = archive.getinfo("model.weights.h5")
        if path == cut:
            with open(cut, "r+b") as f:
                f.truncate(offset + 30 + len("model.weights.h5") + 10)     # inside the data
        fd = os.open(path, os.O_RDONLY)
        try:
            with zipfile.ZipFile(tmp_path / "a.zip") as archive, pytest.raises(ValueError, match=message):
                entry_window(fd, archive, info, str(path))
        finally:
            os.close(fd)


def test_a_flipped_weight_byte_fails_the_checksum_before_any_assignment(tmp_path):
    h5py = pytest.importorskip("h5py")
    import tensorflux as tf
    model = tf.keras.Sequential([tf.keras.Input((64,)), tf.keras.layers.Dense(64)])
    path = tmp_path / "m.keras"
    model.save(path)
    with zipfile.ZipFile(path) as archive:
        assert archive.testzip() is None
        assert [i.compress_type for i in archive.infolist()] == [zipfile.ZIP_STORED] * 3   # as Keras writes
        info = archive.getinfo("model.weights.h5")
        fd = os.open(path, os.O_RDONLY)
        try:
            start, size = entry_window(fd, archive, info, "m.keras")
            with h5py.File(ByteWindow(fd, start, size), "r") as f:
                kernel = f["layers/dense/vars/0"]
                position = start + kernel.id.get_offset() + 17
                assert np.array_equal(kernel[()], model.weights[0].numpy())
        finally:
            os.close(fd)
    blob = bytearray(path.read_bytes())
    blob[position] ^= 0x40
    path.write_bytes(bytes(blob))
    with pytest.raises(ValueError, match="Bad CRC-32"):
        tf.keras.models.load_model(path)
    target = tf.keras.Sequential([tf.keras.Input((64,)), tf.keras.layers.Dense(64)])
    before = [w.numpy() for w in target.weights]
    with pytest.raises(ValueError, match="Bad CRC-32"):
        target.load_weights(path)
    assert all(np.array_equal(a, w.numpy()) for a, w in zip(before, target.weights))    # nothing assigned
