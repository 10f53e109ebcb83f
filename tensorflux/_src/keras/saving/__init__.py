"""Keras saving in Keras 3's file formats: `.keras` archives (`saving.py`, read within limits by
`keras_archive.py`, their weights entry written and read in place by `stored_zip.py`), `.weights.h5` files (`weights_file.py`) in Keras 3's HDF5 layout (`h5_layout.py`),
models as Keras 3 configs and back (`keras_config.py`, `keras_revive.py`), `serialize_keras_object` /
`deserialize_keras_object` (`serialization.py`) and the custom-object registry with the allow-list of
classes a config may name (`object_registration.py`)."""
