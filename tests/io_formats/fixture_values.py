"""The values in the fixtures: make_fixtures.py hands them to TensorFlow, the tests expect them back.

NumPy only, so both the TensorFlow environment and tensorflux's can import it.
"""
import ml_dtypes
import numpy as np

# Checkpoint variables: attribute name -> value (dtype included). One per dtype family, scalars,
# an empty tensor and strings (with an empty and a non-ASCII element), as `tf.Variable`s.
CHECKPOINT_VARIABLES = {
    "weights": np.array([[1.5, -2.0, 3.25], [0.0, -0.5, 1e-3]], dtype=np.float32),
    "step": np.array(7, dtype=np.int64),
    "scale": np.array(2.718281828459045, dtype=np.float64),
    "counts": np.array([1, -2, 2147483647], dtype=np.int32),
    "mask": np.array([True, False, True], dtype=np.bool_),
    "pixels": np.array([[0, 255], [17, 128]], dtype=np.uint8),
    "half": np.array([0.5, -65504.0, 1.0], dtype=np.float16),
    "brain": np.array([1.0, -2.5, 3.0e38], dtype=ml_dtypes.bfloat16),
    "phase": np.array([1 + 2j, -0.5j], dtype=np.complex64),
    "empty": np.zeros((0, 3), dtype=np.float32),
    "names": np.array([b"alpha", b"", "h\u00e9llo".encode("utf-8"), b"x" * 200], dtype=object),
    "title": np.array(b"a scalar string", dtype=object),
}

# tf.train.Example records: one dict per record, feature name -> (kind, values).
EXAMPLES = [
    {"id": ("int64", [1]), "score": ("float", [0.25, -1.5]), "label": ("bytes", [b"cat"])},
    {"id": ("int64", [2, -3, 2**40]), "score": ("float", []), "label": ("bytes", [b"", b"dog\x00"])},
    {"id": ("int64", [3])},
]

# Raw records (not Examples), for the framing: empty, short, and one longer than a 1 KiB buffer.
RAW_RECORDS = [b"", b"abc", bytes(range(256)) * 5]
