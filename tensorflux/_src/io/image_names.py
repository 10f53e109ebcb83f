"""`tf.image.is_jpeg` and `tf.image.extract_jpeg_shape`: TensorFlow exports these io functions under tf.image
too (the same objects)."""
from .encoded_strings import is_jpeg
from .jpeg_header import extract_jpeg_shape

API = {"image": ["is_jpeg", "extract_jpeg_shape"]}
