"""`keras.activations`: elementwise nonlinearities, looked up by name for layers' `activation=` argument."""
import tensorflux as tf


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


_BY_NAME = {f.__name__: f for f in (linear, relu, relu6, leaky_relu, elu, selu, sigmoid, hard_sigmoid, tanh,
                                     softmax, log_softmax, softplus, softsign, silu, gelu, exponential)}
_BY_NAME["swish"] = silu


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


API = {"keras.activations": list(_BY_NAME) + ["get", "serialize"]}
