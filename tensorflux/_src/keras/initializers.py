"""`keras.initializers`: callables `(shape, dtype) -> tensor` giving variables their first values.

Random initializers draw from `tf.random` (so `tf.random.set_seed` / `keras.utils.set_random_seed` make them
reproducible). Given an integer `seed`, they are stateless: every call returns the same values, as
Keras documents for seeded initializers.
"""
import inspect
import math

import numpy as np

import tensorflux as tf


def _dtype(dtype):
    return tf.as_dtype(dtype or "float32")


def compute_fans(shape, input_axes=None, output_axes=None):
    """(fan_in, fan_out) of a weight shape: dense kernels are (in, out), conv kernels (*window, in, out);
    given both `input_axes` and `output_axes` (Keras 3.15), the products of the sizes of those axes."""
    shape = tuple(shape)
    if input_axes is not None and output_axes is not None:
        return math.prod(shape[a] for a in input_axes), math.prod(shape[a] for a in output_axes)
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    receptive_field = math.prod(shape[:-2])
    return shape[-2] * receptive_field, shape[-1] * receptive_field


class Initializer:
    """Base class: subclasses implement `__call__(shape, dtype=None)`."""

    def __call__(self, shape, dtype=None):
        raise NotImplementedError("Initializer subclasses must implement the `__call__()` method.")

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class Zeros(Initializer):
    def __call__(self, shape, dtype=None):
        return tf.zeros(shape, _dtype(dtype))


class Ones(Initializer):
    def __call__(self, shape, dtype=None):
        return tf.ones(shape, _dtype(dtype))


class Constant(Initializer):
    def __init__(self, value=0.0):
        self.value = value

    def __call__(self, shape, dtype=None):
        return tf.fill(shape, tf.cast(self.value, _dtype(dtype)))

    def get_config(self):
        return {"value": self.value}


class _Random(Initializer):
    def __init__(self, seed=None):
        if seed is not None and not isinstance(seed, int):
            raise ValueError(f"`seed` argument should be an instance of `keras.random.SeedGenerator()` or an "
                             f"integer. Received: seed={seed}")
        self.seed = seed


class RandomUniform(_Random):
    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        super().__init__(seed)
        self.minval, self.maxval = minval, maxval

    def __call__(self, shape, dtype=None):
        return _uniform(shape, self.minval, self.maxval, _dtype(dtype), self.seed)

    def get_config(self):
        return {"seed": self.seed, "minval": self.minval, "maxval": self.maxval}


class RandomNormal(_Random):
    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        super().__init__(seed)
        self.mean, self.stddev = mean, stddev

    def __call__(self, shape, dtype=None):
        return _normal(shape, self.mean, self.stddev, _dtype(dtype), self.seed)

    def get_config(self):
        return {"seed": self.seed, "mean": self.mean, "stddev": self.stddev}


class TruncatedNormal(RandomNormal):
    def __call__(self, shape, dtype=None):
        return tf.random.truncated_normal(shape, self.mean, self.stddev, _dtype(dtype), seed=self.seed)


class VarianceScaling(_Random):
    """Random values whose variance is `scale / fan` (fan_in, fan_out or their mean)."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None, input_axes=None,
                 output_axes=None):
        super().__init__(seed)
        self.input_axes, self.output_axes = input_axes, output_axes
        if scale <= 0.0:
            raise ValueError(f"Argument `scale` must be positive float. Received: scale={scale}")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"Invalid `mode` argument: expected one of {{'fan_in', 'fan_out', 'fan_avg'}}. "
                             f"Received: mode={mode}")
        distribution = distribution.lower()
        if distribution == "normal":
            distribution = "truncated_normal"
        if distribution not in ("uniform", "truncated_normal", "untruncated_normal"):
            raise ValueError(f"Invalid `distribution` argument: expected one of {{'uniform', 'truncated_normal', "
                             f"'untruncated_normal'}}. Received: distribution={distribution}")
        self.scale, self.mode, self.distribution = scale, mode, distribution

    def __call__(self, shape, dtype=None):
        fan_in, fan_out = compute_fans(shape, self.input_axes, self.output_axes)
        fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        variance = self.scale / max(1.0, fan)
        dtype = _dtype(dtype)
        if self.distribution == "uniform":
            limit = math.sqrt(3.0 * variance)
            return _uniform(shape, -limit, limit, dtype, self.seed)
        if self.distribution == "truncated_normal":
            # 0.8796... is the stddev of a unit normal truncated to [-2, 2]: undo the truncation's shrinkage.
            stddev = math.sqrt(variance) / 0.87962566103423978
            return tf.random.truncated_normal(shape, 0.0, stddev, dtype, seed=self.seed)
        return _normal(shape, 0.0, math.sqrt(variance), dtype, self.seed)

    def get_config(self):
        return {"seed": self.seed, "scale": self.scale, "mode": self.mode, "distribution": self.distribution,
                "input_axes": self.input_axes, "output_axes": self.output_axes}


def _variance_scaling(class_name, scale, mode, distribution):
    def __init__(self, seed=None, input_axes=None, output_axes=None):
        VarianceScaling.__init__(self, scale, mode, distribution, seed, input_axes, output_axes)

    def get_config(self):
        return {"seed": self.seed, "input_axes": self.input_axes, "output_axes": self.output_axes}
    return type(class_name, (VarianceScaling,), {"__init__": __init__, "get_config": get_config})


GlorotUniform = _variance_scaling("GlorotUniform", 1.0, "fan_avg", "uniform")
GlorotNormal = _variance_scaling("GlorotNormal", 1.0, "fan_avg", "truncated_normal")
HeUniform = _variance_scaling("HeUniform", 2.0, "fan_in", "uniform")
HeNormal = _variance_scaling("HeNormal", 2.0, "fan_in", "truncated_normal")
LecunUniform = _variance_scaling("LecunUniform", 1.0, "fan_in", "uniform")
LecunNormal = _variance_scaling("LecunNormal", 1.0, "fan_in", "truncated_normal")


def _orthonormal(a):
    """Q of the QR decomposition of `a`, its columns' signs fixed by R's diagonal (so Q is uniformly random)."""
    q, r = np.linalg.qr(a)
    signs = np.sign(np.diag(r))
    signs[signs == 0] = 1
    return (q * signs).astype(a.dtype)


class Orthogonal(_Random):
    """A random orthogonal matrix (or, for more dimensions, one flattened to `[prod(shape[:-1]), shape[-1]]`),
    scaled by `gain`: orthonormal rows when there are fewer rows than columns, orthonormal columns otherwise.
    Keras' default for recurrent kernels."""

    def __init__(self, gain=1.0, seed=None):
        super().__init__(seed)
        self.gain = gain

    def __call__(self, shape, dtype=None):
        shape = tuple(shape)
        if len(shape) < 2:
            raise ValueError(f"The tensor to initialize must be at least two-dimensional. Received: "
                             f"shape={shape} of rank {len(shape)}.")
        dtype = _dtype(dtype)
        rows, cols = math.prod(shape[:-1]), shape[-1]
        sample = _normal((max(rows, cols), min(rows, cols)), 0.0, 1.0, dtype, self.seed)
        q = tf.numpy_function(_orthonormal, [sample], dtype, stateful=False)
        if rows < cols:
            q = tf.transpose(q)
        return self.gain * tf.reshape(q, shape)

    def get_config(self):
        return {"seed": self.seed, "gain": self.gain}


class Identity(Initializer):
    """`gain` times the identity matrix (2-D shapes only; a non-square one gets ones on its main diagonal).
    As Keras 3, its config is empty: `gain` is not serialized."""

    def __init__(self, gain=1.0):
        self.gain = gain

    def __call__(self, shape, dtype=None):
        shape = tuple(shape)
        if len(shape) != 2:
            raise ValueError(f"Identity matrix initializer can only be used for 2D matrices. Received: "
                             f"shape={shape} of rank {len(shape)}.")
        return self.gain * tf.eye(*shape, dtype=_dtype(dtype))


def _named_window(name, length, periodic):
    """The windows of scipy.signal.get_window that are closed cosine sums, computed here (Keras asks SciPy,
    which tensorflux does not need); a periodic window is the symmetric one of length + 1, truncated."""
    coefficients = {"hann": (0.5, 0.5), "hamming": (0.54, 0.46), "blackman": (0.42, 0.5, 0.08),
                    "boxcar": (1.0,)}.get(name)
    if coefficients is None:
        raise NotImplementedError(f"STFT's window {name!r} is not supported by tensorflux (Keras takes it from "
                                  f"scipy.signal.get_window); supported names: 'hann', 'hamming', 'blackman', "
                                  f"'boxcar', or pass the window as an array.")
    size = length + 1 if periodic else length
    if size == 1:
        return np.ones(length)
    phase = 2.0 * np.pi * np.arange(size) / (size - 1)
    window = sum((-1) ** k * c * np.cos(k * phase) for k, c in enumerate(coefficients))
    return window[:length]


class STFT(Initializer):
    """The real (`side="real"`) or imaginary part of the DFT basis times a window, shape
    `(frame_length, 1, fft_length // 2 + 1)`: a Conv1D kernel that computes a short-time Fourier transform."""

    def __init__(self, side="real", window="hann", scaling="density", periodic=False):
        if side not in ["real", "imag"]:
            raise ValueError(f"side should be 'real' or 'imag', not {side}")
        if isinstance(window, str):
            _named_window(window, 1, periodic)          # an unknown name fails here, as in Keras
        if scaling is not None and scaling not in ["density", "spectrum"]:
            raise ValueError(f"Scaling is invalid, it must be `None`, 'density' or 'spectrum'. Received "
                             f"scaling={scaling}")
        self.side, self.window, self.scaling, self.periodic = side, window, scaling, periodic

    def __call__(self, shape, dtype=None):
        dtype = _dtype(dtype)
        frame_length, _, fft_length = shape
        window, scale = None, 1
        if self.window is not None:
            window = self.window
            if isinstance(window, str):
                window = _named_window(window, frame_length, self.periodic)
            window = tf.cast(window, dtype)
            if len(window.shape) != 1 or window.shape[-1] != frame_length:
                raise ValueError(f"The shape of `window` must be equal to [frame_length].Received: window "
                                 f"shape={window.shape}")
            window = tf.reshape(window, [frame_length, 1, 1])
            if self.scaling == "density":
                scale = tf.sqrt(tf.reduce_sum(tf.square(window)))
            elif self.scaling == "spectrum":
                scale = tf.reduce_sum(tf.abs(window))
        frequency = tf.reshape(tf.range(fft_length, dtype=dtype), (1, 1, fft_length)) / tf.cast(
            (fft_length - 1) * 2, dtype)
        time = tf.reshape(tf.range(frame_length, dtype=dtype), (frame_length, 1, 1))
        angle = (-2.0 * time) * frequency * tf.acos(tf.constant(-1.0, dtype))
        kernel = tf.cos(angle) if self.side == "real" else tf.sin(angle)
        if window is not None:
            kernel = kernel * window / scale
        return kernel

    def get_config(self):
        return {"side": self.side, "window": self.window, "periodic": self.periodic, "scaling": self.scaling}


def _uniform(shape, minval, maxval, dtype, seed):
    if seed is None:
        return tf.random.uniform(shape, minval, maxval, dtype)
    return tf.random.stateless_uniform(shape, [seed, 0], minval, maxval, dtype)


def _normal(shape, mean, stddev, dtype, seed):
    if seed is None:
        return tf.random.normal(shape, mean, stddev, dtype)
    return tf.random.stateless_normal(shape, [seed, 0], mean, stddev, dtype)


zeros, ones, constant = Zeros, Ones, Constant
random_uniform, random_normal, truncated_normal = RandomUniform, RandomNormal, TruncatedNormal
variance_scaling, glorot_uniform, glorot_normal = VarianceScaling, GlorotUniform, GlorotNormal
he_uniform, he_normal, lecun_uniform, lecun_normal = HeUniform, HeNormal, LecunUniform, LecunNormal
orthogonal, identity, stft = Orthogonal, Identity, STFT
OrthogonalInitializer, IdentityInitializer, STFTInitializer = Orthogonal, Identity, STFT

_CLASSES = (Zeros, Ones, Constant, RandomUniform, RandomNormal, TruncatedNormal, VarianceScaling,
            GlorotUniform, GlorotNormal, HeUniform, HeNormal, LecunUniform, LecunNormal, Orthogonal, Identity, STFT)
# Keras 3's table of names (initializers.ALL_OBJECTS_DICT), including its short aliases.
_BY_NAME = {"zeros": Zeros, "ones": Ones, "constant": Constant, "random_uniform": RandomUniform,
            "random_normal": RandomNormal, "truncated_normal": TruncatedNormal,
            "variance_scaling": VarianceScaling, "glorot_uniform": GlorotUniform, "glorot_normal": GlorotNormal,
            "he_uniform": HeUniform, "he_normal": HeNormal, "lecun_uniform": LecunUniform,
            "lecun_normal": LecunNormal, "orthogonal": Orthogonal, "identity": Identity, "stft": STFT,
            "normal": RandomNormal, "uniform": RandomUniform, "one": Ones, "zero": Zeros,
            "Initializer": Initializer, "initializer": Initializer, "OrthogonalInitializer": Orthogonal,
            "IdentityInitializer": Identity, "STFTInitializer": STFT}
_BY_NAME.update({cls.__name__: cls for cls in _CLASSES})


def get(identifier):
    """An initializer from a name ("glorot_uniform", "Zeros"…), an instance, or any callable."""
    if identifier is None:
        return None
    if isinstance(identifier, str):
        cls = _BY_NAME.get(identifier)
        if cls is not None:
            return cls()
    elif isinstance(identifier, type) and issubclass(identifier, Initializer):
        return identifier()
    elif isinstance(identifier, dict) and isinstance(identifier.get("class_name"), str):
        return _from_keras_config(identifier)
    elif callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret initializer identifier: {identifier}")


def _from_keras_config(entry):
    """An initializer from Keras 3's serialized form (`{"class_name": "GlorotUniform", "config": {...}}`,
    what a layer's get_config() holds); Keras arguments this class lacks are dropped when unset (None)."""
    cls = _BY_NAME.get(entry["class_name"])
    config = entry.get("config") or {}
    if cls is None or not isinstance(config, dict):
        raise ValueError(f"Could not interpret initializer identifier: {entry}")
    accepted = inspect.signature(cls.__init__).parameters
    if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in accepted.values()):
        config = {k: v for k, v in config.items() if k in accepted or v is not None}
    return cls(**config)


_ALIASES = ("zeros", "ones", "constant", "random_uniform", "random_normal", "truncated_normal", "variance_scaling",
            "glorot_uniform", "glorot_normal", "he_uniform", "he_normal", "lecun_uniform", "lecun_normal",
            "orthogonal", "identity", "stft", "OrthogonalInitializer", "IdentityInitializer", "STFTInitializer")
API = {"keras.initializers": [cls.__name__ for cls in _CLASSES] + list(_ALIASES) + ["Initializer", "get"]}
