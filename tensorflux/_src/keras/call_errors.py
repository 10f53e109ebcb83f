"""Keras 3's error context for a failing `layer.call()`: the exception is raised again, of the same class,
with a message naming the layer class and listing the arguments the call received.

    Exception encountered when calling FlexibleDense.call().

    <bold>Matrix size-incompatible: In[0]: [1,4], In[1]: [3,3] [Op:MatMul]<end bold>

    Arguments received by FlexibleDense.call():
      • inputs=tf.Tensor(shape=(1, 4), dtype=float32)

Only the innermost failing call adds it (the new exception is marked); tensors are shown by shape and
dtype, other values by repr. An exception whose class cannot be made from a message becomes a
RuntimeError, as in Keras.
"""
import inspect

import tensorflux as tf

__all__ = ["with_call_context"]


def _format(value):
    if isinstance(value, (tf.Tensor, tf.Variable)) or tf.is_tensor(value):
        return f"tf.Tensor(shape={value.shape}, dtype={value.dtype.name})"
    return repr(value)


def with_call_context(layer, error, args, kwargs):
    """The exception to raise for `error`, raised by `layer.call(*args, **kwargs)`."""
    if getattr(error, "_keras_call_info_injected", False):
        return error
    try:
        signature = inspect.signature(layer.call)
        bound = signature.bind(*args, **kwargs)
    except (TypeError, ValueError):
        return error        # arguments that do not bind: the error says enough
    lines = []
    for parameter in signature.parameters.values():
        if parameter.name in bound.arguments:
            value = tf.nest.map_structure(_format, bound.arguments[parameter.name])
        else:
            value = parameter.default
        lines.append(f"  • {parameter.name}={value}")
    if not lines:
        return error
    if isinstance(error, tf.errors.OpError):
        message = error.message
    else:
        message = error.args[0] if error.args else ""
    name = f"{type(layer).__name__}.call()"
    message = (f"Exception encountered when calling {name}.\n\n\x1b[1m{message}\x1b[0m\n\n"
               f"Arguments received by {name}:\n" + "\n".join(lines))
    if isinstance(error, tf.errors.OpError):
        new = type(error)(error.node_def, error.op, message, error.error_code)
    else:
        try:
            new = type(error)(message)
        except Exception:
            new = RuntimeError(message)
        else:
            # Attributes a custom exception carries stay with it.
            for key, value in vars(error).items():
                vars(new).setdefault(key, value)
    new._keras_call_info_injected = True
    return new.with_traceback(error.__traceback__)
