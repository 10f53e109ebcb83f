"""`keras.activations`: elementwise nonlinearities, looked up by name for layers' `activation=` argument."""
import tensorflux as tf

from . import ops_nn as _ops_nn  # keras.ops' sparsemax, shared


def linear(x):
    return x


def relu(x, negative_slope=0.0, max_value=None, threshold=0.0):
    if negative_slope == 0.0 and max_value is None and threshold == 0.0:
        return tf.nn.relu(x)  # the common case is one op
    x = tf.convert_to_tensor(x)
    below = x <= threshold       # Keras damps the threshold value itself too
    y = tf.where(below, negative_slope * (x - threshold) if negative_slope else tf.zeros_like(x), x)
    if max_value is not None:
        y = tf.minimum(y, tf.cast(max_value, y.dtype))
    return y


def relu6(x):
    return tf.nn.relu6(x)


def leaky_relu(x, negative_slope=0.2):
    return tf.nn.leaky_relu(x, alpha=negative_slope)


def elu(x, alpha=1.0):
    y = tf.nn.elu(x)
    return y if alpha == 1.0 else tf.where(x > 0, y, alpha * y)


def selu(x):
    return tf.nn.selu(x)


def sigmoid(x):
    return tf.sigmoid(x)


def hard_sigmoid(x):
    return tf.nn.relu6(x + 3.0) / 6.0


def tanh(x):
    return tf.tanh(x)


def softmax(x, axis=-1):
    return tf.nn.softmax(x, axis=axis)


def log_softmax(x, axis=-1):
    return tf.nn.log_softmax(x, axis=axis)


def softplus(x):
    return tf.nn.softplus(x)


def softsign(x):
    return tf.nn.softsign(x)


def silu(x):
    return tf.nn.silu(x)


swish = silu


def gelu(x, approximate=False):
    return tf.nn.gelu(x, approximate=approximate)


def exponential(x):
    return tf.exp(x)


def celu(x, alpha=1.0):
    """max(x, 0) + alpha · expm1(min(x, 0) / alpha)."""
    x = tf.convert_to_tensor(x)
    return tf.nn.relu(x) + alpha * tf.math.expm1(tf.minimum(x, 0.0) / alpha)


def glu(x, axis=-1):
    """The gated linear unit: the first half of `axis` times the sigmoid of the second half."""
    a, b = tf.split(tf.convert_to_tensor(x), 2, axis=axis)
    return a * tf.sigmoid(b)


def hard_silu(x):
    """x · relu6(x + 3) / 6."""
    x = tf.convert_to_tensor(x)
    return x * tf.nn.relu6(x + 3.0) / 6.0


hard_swish = hard_silu


def hard_tanh(x):
    x = tf.convert_to_tensor(x)
    return tf.clip_by_value(x, tf.cast(-1.0, x.dtype), tf.cast(1.0, x.dtype))


def hard_shrink(x, threshold=0.5):
    """x where |x| > threshold, else 0."""
    x = tf.convert_to_tensor(x)
    return tf.where(tf.abs(x) > threshold, x, tf.zeros_like(x))


def soft_shrink(x, threshold=0.5):
    """x moved towards zero by `threshold` (0 within it)."""
    x = tf.convert_to_tensor(x)
    return tf.where(x > threshold, x - threshold, tf.where(x < -threshold, x + threshold, tf.zeros_like(x)))


def tanh_shrink(x):
    x = tf.convert_to_tensor(x)
    return x - tf.tanh(x)


def log_sigmoid(x):
    return -tf.nn.softplus(-tf.convert_to_tensor(x))


def mish(x):
    """x · tanh(softplus(x))."""
    x = tf.convert_to_tensor(x)
    return x * tf.tanh(tf.nn.softplus(x))


def sparse_plus(x):
    """0 below -1, x above 1, (x + 1)² / 4 between."""
    x = tf.convert_to_tensor(x)
    return tf.where(x <= -1.0, tf.zeros_like(x), tf.where(x >= 1.0, x, tf.square(x + 1.0) / 4.0))


def sparse_sigmoid(x):
    """0 below -1, 1 above 1, (x + 1) / 2 between."""
    x = tf.convert_to_tensor(x)
    return tf.where(x <= -1.0, tf.zeros_like(x), tf.where(x >= 1.0, tf.ones_like(x), 0.5 * (x + 1.0)))


def sparsemax(x, axis=-1):
    """The projection of `x` onto the probability simplex along `axis` (keras.ops.sparsemax)."""
    return _ops_nn.sparsemax(x, axis=axis)


def squareplus(x, b=4):
    """(x + sqrt(x² + b)) / 2."""
    x = tf.convert_to_tensor(x)
    return (x + tf.sqrt(tf.square(x) + tf.cast(b, x.dtype))) / 2.0


def threshold(x, threshold, default_value):
    """x where x > threshold, else `default_value`."""
    x = tf.convert_to_tensor(x)
    return tf.where(x > threshold, x, tf.cast(default_value, x.dtype) * tf.ones_like(x))


_BY_NAME = {f.__name__: f for f in (linear, relu, relu6, leaky_relu, elu, selu, sigmoid, hard_sigmoid, tanh,
                                     softmax, log_softmax, softplus, softsign, silu, gelu, exponential, celu, glu,
                                     hard_silu, hard_tanh, hard_shrink, soft_shrink, tanh_shrink, log_sigmoid, mish,
                                     sparse_plus, sparse_sigmoid, sparsemax, squareplus, threshold)}
_BY_NAME["swish"] = silu
_BY_NAME["hard_swish"] = hard_silu


def get(identifier):
    """The activation function for a name, a callable, or None (linear)."""
    if identifier is None:
        return linear
    if isinstance(identifier, str):
        fn = _BY_NAME.get(identifier)
        if fn is not None:
            return fn
    elif callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret activation function identifier: {identifier}")


def serialize(activation):
    return getattr(activation, "__name__", None)


def deserialize(config, custom_objects=None):
    """The activation function named by `config` (a name, or a Keras config dict naming a function)."""
    if isinstance(config, dict):
        config = config.get("config", config.get("class_name"))
    if custom_objects and config in custom_objects:
        return custom_objects[config]
    fn = _BY_NAME.get(config) if isinstance(config, str) else None
    if fn is None:
        raise ValueError(f"Could not interpret activation function identifier: {config}")
    return fn


API = {"keras.activations": list(_BY_NAME) + ["get", "serialize", "deserialize"]}
