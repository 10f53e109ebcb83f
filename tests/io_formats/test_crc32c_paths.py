"""CRC-32C's four paths — byte table, lane-parallel NumPy, compiled slicing-by-8 (numba), the CPU instruction
through google-crc32c — give the same checksum for every length and continuation, including the standard
check value."""
import numpy as np
import pytest

from tensorflux._src.io.formats import crc32c as c


def _with_thresholds(monkeypatch, vector, compiled):
    monkeypatch.setattr(c, "_HARDWARE", [None])    # the project's own paths, whatever is installed
    monkeypatch.setattr(c, "_VECTOR_THRESHOLD", vector)
    monkeypatch.setattr(c, "_COMPILED_THRESHOLD", compiled)
    monkeypatch.setattr(c, "_COMPILED_THRESHOLD_LOADED", compiled)


@pytest.mark.parametrize("size", [0, 1, 7, 8, 9, 255, 16383, 16384, 131071, 200003, (1 << 20) + 13])
def test_every_path_gives_the_byte_table_checksum(monkeypatch, size):
    data = np.random.default_rng(size).integers(0, 256, size=size, dtype=np.uint8).tobytes()
    reference = c._raw_update(7 ^ 0xFFFFFFFF, data) ^ 0xFFFFFFFF
    _with_thresholds(monkeypatch, 1 << 62, 1 << 62)
    assert c.crc32c(data, 7) == reference
    _with_thresholds(monkeypatch, 16384, 1 << 62)
    assert c.crc32c(data, 7) == reference          # lanes, then smaller lanes for what is left over
    pytest.importorskip("numba")
    _with_thresholds(monkeypatch, 16384, 0)
    assert c.crc32c(data, 7) == reference          # compiled


@pytest.mark.parametrize("size", [0, 1, 9, 16384, 200003])
def test_the_hardware_path_gives_the_byte_table_checksum(monkeypatch, size):
    pytest.importorskip("google_crc32c")
    monkeypatch.setattr(c, "_HARDWARE", [])
    data = np.random.default_rng(size).integers(0, 256, size=size, dtype=np.uint8)
    reference = c._raw_update(7 ^ 0xFFFFFFFF, data.tobytes()) ^ 0xFFFFFFFF
    # bytes, a NumPy array's memory, a bytearray and a memoryview: every buffer a writer hands over
    for chunk in (data.tobytes(), memoryview(data), bytearray(data.tobytes()), memoryview(data.tobytes())):
        assert c.crc32c(chunk, 7) == reference
    assert c._HARDWARE[0] is not None


def test_without_google_crc32c_the_numpy_paths_are_used(monkeypatch):
    import sys
    monkeypatch.setattr(c, "_HARDWARE", [])
    monkeypatch.setitem(sys.modules, "google_crc32c", None)   # as if not installed
    assert c.crc32c(b"123456789") == 0xE3069283
    assert c._HARDWARE == [None]


@pytest.mark.parametrize("hardware", [True, False])
def test_check_value_and_continuation(monkeypatch, hardware):
    if hardware:
        pytest.importorskip("google_crc32c")
    monkeypatch.setattr(c, "_HARDWARE", [] if hardware else [None])
    assert c.crc32c(b"123456789") == 0xE3069283
    data = np.random.default_rng(1).integers(0, 256, size=5 << 20, dtype=np.uint8).tobytes()
    whole = c.crc32c(data)
    assert c.crc32c(data[12345:], c.crc32c(data[:12345])) == whole
    _with_thresholds(monkeypatch, 1 << 62, 1 << 62)
    assert c.crc32c(data[:300000]) == c._raw_update(0xFFFFFFFF, data[:300000]) ^ 0xFFFFFFFF
