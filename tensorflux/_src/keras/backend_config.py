"""Keras's global settings (`keras.backend.floatx`, `keras.config.*`, `keras.mixed_precision`) as far as
tensorflux's Keras has them: it computes in float32, channels-last, with epsilon 1e-7. Setting another
value that tensorflux can honour (epsilon) takes effect; asking for one it cannot (float16 compute,
mixed precision, channels-first) raises a clear ValueError instead of being ignored."""

__all__ = ["floatx", "set_floatx", "epsilon", "set_epsilon", "image_data_format", "set_image_data_format",
           "Policy", "global_policy", "set_global_policy"]

_EPSILON = [1e-7]


def floatx():
    return "float32"


def set_floatx(value):
    if value not in {"bfloat16", "float16", "float32", "float64"}:
        raise ValueError(f"Unknown `floatx` value: {value}. Expected one of {{'bfloat16', 'float16', 'float32', "
                         f"'float64'}}")
    if value != "float32":
        raise NotImplementedError(f"tensorflux's Keras computes in float32 only. Received: floatx={value}")


def epsilon():
    return _EPSILON[0]


def set_epsilon(value):
    _EPSILON[0] = float(value)


def image_data_format():
    return "channels_last"


def set_image_data_format(data_format):
    if str(data_format).lower() == "channels_first":
        raise NotImplementedError(f"tensorflux's Keras layers use channels_last only. Received: "
                                  f"data_format={data_format}")
    if str(data_format).lower() != "channels_last":
        raise ValueError(f"The `data_format` argument must be one of {{'channels_first', 'channels_last'}}. "
                         f"Received: data_format={data_format}")


class Policy:
    """A dtype policy; only "float32" (compute and variables in float32) exists here."""

    def __init__(self, name):
        if name != "float32":
            raise NotImplementedError(f"tensorflux's Keras computes in float32 only: dtype policy {name!r} (mixed "
                                      f"precision, other float types) is not implemented.")
        self.name = name

    @property
    def compute_dtype(self):
        return "float32"

    @property
    def variable_dtype(self):
        return "float32"

    def __repr__(self):
        return f'<DTypePolicy "{self.name}">'


_POLICY = [Policy("float32")]


def global_policy():
    return _POLICY[0]


def set_global_policy(policy):
    _POLICY[0] = policy if isinstance(policy, Policy) else Policy(str(policy))


API = {"keras.backend": ["floatx", "set_floatx", "epsilon", "set_epsilon", "image_data_format",
                         "set_image_data_format"],
       "keras.config": ["floatx", "set_floatx", "epsilon", "set_epsilon", "image_data_format",
                        "set_image_data_format"],
       "keras.mixed_precision": ["Policy", "global_policy", "set_global_policy"]}
