"""`tf.keras`: Keras 3 on tensorflux. Importing this module loads the Keras room (`tensorflux._src.keras`),
which fills this namespace, and `tf.keras.layers`, `tf.keras.models`, … beside it, with their API names."""
from .._src import keras as _keras  # noqa: F401  (fills this module through _src/namespaces.install)
