"""The Hashing layer, and the one-hot / multi-hot / count encoder it shares with the lookup layers
(CategoryEncoding itself lives in structural.py).

Encodings follow Keras 3's TensorFlow backend: `one_hot` encodes every element (a trailing axis of size 1 is
replaced by the encoding), `multi_hot` and `count` fold the last axis (a sample's tokens) into one vector of
`depth` entries; indices outside [0, depth) are dropped (TensorFlow's bincount ignores them). Ragged inputs
(whitespace-split text) are folded row by row. Hashing maps values to bins with FarmHash64 (TensorFlow's
`to_hash_bucket_fast`), or SipHash keyed by `salt` (`to_hash_bucket_strong`); numbers are hashed as their
decimal strings, floats after truncation to int64, as Keras does.
"""
import tensorflux as tf

from .layer import Layer

_ENCODING_MODES = ("one_hot", "multi_hot", "count")


def _bin_counts(ids, depth, weights=None):
    """Per-sample counts of each id in [0, depth) (others dropped): [samples..., depth] float32. The ids of
    a sample are the last axis of `ids` (a row of a RaggedTensor). Counted by one segment sum over the
    tokens, so memory grows with the tokens plus the output, never tokens x depth."""
    if isinstance(ids, tf.RaggedTensor):
        if ids.ragged_rank != 1 or ids.shape.rank != 2:
            raise ValueError(f"Encoding a RaggedTensor needs one ragged axis of samples, shape (batch, None). "
                             f"Received: shape={ids.shape}")
        flat, rows, samples, outer = ids.flat_values, ids.value_rowids(), ids.nrows(), None
        if weights is not None:
            weights = weights.flat_values if isinstance(weights, tf.RaggedTensor) else tf.reshape(weights, [-1])
    else:
        shape = tf.shape(ids)
        outer = shape[:-1]
        samples = tf.reduce_prod(outer)
        width = shape[-1]
        flat = tf.reshape(ids, [-1])
        rows = tf.reshape(tf.tile(tf.expand_dims(tf.range(samples), 1), tf.stack([1, width])), [-1])
        if weights is not None:
            weights = tf.reshape(weights, [-1])
    flat, rows = tf.cast(flat, tf.int64), tf.cast(rows, tf.int64)
    samples = tf.cast(samples, tf.int64)
    kept = (flat >= 0) & (flat < depth)
    slots = tf.boolean_mask(rows * depth + flat, kept)
    values = tf.boolean_mask(tf.cast(weights, tf.float32), kept) if weights is not None else \
        tf.ones_like(slots, tf.float32)
    counts = tf.math.unsorted_segment_sum(values, slots, samples * depth)
    counts = tf.reshape(counts, tf.stack([samples, tf.constant(depth, tf.int64)]))
    if outer is not None:
        counts = tf.reshape(counts, tf.concat([tf.cast(outer, tf.int64), [depth]], 0))
    counts.set_shape(list(ids.shape)[:-1] + [depth])
    return counts


def encode_categorical(ids, output_mode, depth, dtype, sparse=False, count_weights=None):
    """Integer `ids` (a tensor or a RaggedTensor) as `output_mode` encodings of `depth` entries."""
    if output_mode == "int":
        return tf.cast(ids, dtype)
    ragged = isinstance(ids, tf.RaggedTensor)
    if not ragged and ids.shape.rank == 0:
        ids = tf.expand_dims(ids, -1)
    if output_mode == "one_hot":
        if ragged:
            raise ValueError("output_mode='one_hot' needs dense inputs; received a RaggedTensor.")
        if ids.shape.rank > 1 and ids.shape[-1] == 1:
            ids = tf.squeeze(ids, -1)
        outputs = tf.one_hot(tf.cast(ids, tf.int64), depth, dtype=tf.float32)
    else:
        if count_weights is not None and not isinstance(count_weights, tf.RaggedTensor):
            count_weights = tf.convert_to_tensor(count_weights)
        outputs = _bin_counts(ids, depth, count_weights)
        if output_mode == "multi_hot":
            outputs = tf.minimum(outputs, 1.0)
    outputs = tf.cast(outputs, dtype)
    return tf.sparse.from_dense(outputs) if sparse else outputs


def _as_tensor(inputs):
    if isinstance(inputs, (tf.Tensor, tf.RaggedTensor, tf.SparseTensor)) or tf.is_tensor(inputs):
        return inputs
    return tf.convert_to_tensor(inputs)


def _base_config(layer, dtype="float32"):
    return {"name": layer.name, "trainable": layer.trainable,
            "dtype": {"module": "keras", "class_name": "DTypePolicy", "config": {"name": dtype},
                      "registered_name": None}}


def _salt_pair(salt, owner):
    if salt is None:
        return None
    if isinstance(salt, (tuple, list)) and len(salt) == 2:
        return list(salt)
    if isinstance(salt, int):
        return [salt, salt]
    raise ValueError(f"The `salt` argument for `{owner}` can only be a tuple of size 2 integers, or a single "
                     f"integer. Received: salt={salt}.")


def hash_to_bins(values, num_bins, salt=None):
    """`values` (strings or numbers) hashed to int64 bins in [0, num_bins), as Keras hashes them."""
    if values.dtype.is_floating:
        values = tf.cast(values, tf.int64)
    if values.dtype != tf.string:
        values = tf.strings.as_string(values)
    if salt is not None:
        return tf.strings.to_hash_bucket_strong(values, num_bins, key=salt)
    return tf.strings.to_hash_bucket_fast(values, num_bins)


class Hashing(Layer):
    """Hashes strings or integers into `num_bins` bins (bin 0 kept for `mask_value` when one is given),
    then encodes the bins as `output_mode` says."""

    _allow_non_tensor_positional_args = True     # a Keras data layer: Python values are accepted

    def __init__(self, num_bins, mask_value=None, salt=None, output_mode="int", sparse=False, **kwargs):
        dtype = kwargs.pop("dtype", None)
        dtype = getattr(dtype, "name", dtype) or ("int64" if output_mode == "int" else "float32")
        if isinstance(dtype, dict):     # a serialized DTypePolicy
            dtype = (dtype.get("config") or {}).get("name")
        super().__init__(**kwargs)
        if num_bins is None or num_bins <= 0:
            raise ValueError(f"The `num_bins` for `Hashing` cannot be `None` or non-positive values. "
                             f"Received: num_bins={num_bins}.")
        if output_mode == "int" and dtype not in ("int32", "int64"):
            raise ValueError(f"When `output_mode=\"int\"`, `dtype` should be an integer type, 'int32' or 'in64'. "
                             f"Received: dtype={dtype}")
        modes = ("int",) + _ENCODING_MODES
        if output_mode not in modes:
            raise ValueError(f"Invalid value for argument `output_mode`. Expected one of {modes}. "
                             f"Received: output_mode={output_mode}")
        if sparse and output_mode == "int":
            raise ValueError(f"`sparse` may only be true if `output_mode` is `\"one_hot\"`, `\"multi_hot\"`, or "
                             f"`\"count\"`. Received: sparse={sparse} and output_mode={output_mode}")
        self.num_bins = num_bins
        self.mask_value = mask_value
        self.salt = _salt_pair(salt, "Hashing")
        self.strong_hash = self.salt is not None
        self.output_mode = output_mode
        self.sparse = sparse
        self._output_dtype = dtype

    @property
    def dtype(self):
        return self._output_dtype

    compute_dtype = dtype

    def _bins(self, values):
        bins = self.num_bins
        mask = None
        if self.mask_value is not None and bins > 1:
            bins -= 1       # bin 0 is the mask's
            mask = tf.equal(values, tf.cast(self.mask_value, values.dtype))
        hashed = hash_to_bins(values, bins, self.salt)
        if mask is not None:
            hashed = tf.where(mask, tf.zeros_like(hashed), hashed + 1)
        return hashed

    def call(self, inputs):
        inputs = _as_tensor(inputs)
        if self.output_mode == "one_hot" and inputs.shape.rank and inputs.shape[-1] == 1:
            inputs = tf.squeeze(inputs, -1)
        if isinstance(inputs, tf.RaggedTensor):
            indices = tf.ragged.map_flat_values(self._bins, inputs)
        elif isinstance(inputs, tf.SparseTensor):
            indices = tf.SparseTensor(inputs.indices, self._bins(inputs.values), inputs.dense_shape)
        else:
            indices = self._bins(inputs)
        return encode_categorical(indices, self.output_mode, self.num_bins, tf.as_dtype(self._output_dtype),
                                  self.sparse)

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        if self.output_mode == "int":
            return input_shape
        return (self.num_bins,) if not input_shape else input_shape[:-1] + (self.num_bins,)

    def get_config(self):
        return {**_base_config(self, self._output_dtype), "num_bins": self.num_bins, "salt": self.salt,
                "mask_value": self.mask_value, "output_mode": self.output_mode, "sparse": self.sparse}


class HashedCrossing(Layer):
    """Crosses two or more categorical features (integers or strings of shape (), (batch,) or (batch, 1))
    by hashing each combination into `num_bins` bins (TensorFlow's `tf.sparse.cross_hashed`)."""

    _allow_non_tensor_positional_args = True     # a Keras data layer: Python values are accepted

    def __init__(self, num_bins, output_mode="int", sparse=False, name=None, dtype=None, **kwargs):
        dtype = getattr(dtype, "name", dtype)
        if isinstance(dtype, dict):     # a serialized DTypePolicy
            dtype = (dtype.get("config") or {}).get("name")
        dtype = dtype or ("int64" if output_mode == "int" else "float32")
        super().__init__(name=name, **kwargs)
        if output_mode not in ("int", "one_hot"):
            raise ValueError(f"Unkown value for `output_mode` argument of layer HashedCrossing. Allowed values are: "
                             f"('int', 'one_hot'). Received: {output_mode}")
        self.num_bins, self.output_mode, self.sparse = num_bins, output_mode, sparse
        self._output_dtype = dtype

    @property
    def dtype(self):
        return self._output_dtype

    compute_dtype = dtype

    def call(self, inputs):
        if not isinstance(inputs, (list, tuple)):
            raise ValueError(f"`HashedCrossing` should be called on a list or tuple of inputs. Received: "
                             f"inputs={inputs}")
        if len(inputs) < 2:
            raise ValueError(f"`HashedCrossing` should be called on at least two inputs. Received: inputs={inputs}")
        inputs = [_as_tensor(x) for x in inputs]
        shape = tuple(inputs[0].shape.as_list())
        rank = len(shape)
        if rank > 2 or (rank == 2 and shape[-1] != 1):
            raise ValueError(f"All `HashedCrossing` inputs should have shape `()`, `(batch_size)` or "
                             f"`(batch_size, 1)`. Received: inputs={inputs}")
        if any(tuple(x.shape.as_list()) != shape for x in inputs[1:]):
            raise ValueError(f"All `HashedCrossing` inputs should have equal shape. Received: inputs={inputs}")
        if not all(x.dtype.is_integer or x.dtype == tf.string for x in inputs):
            raise ValueError(f"All `HashedCrossing` inputs should have an integer or string dtype. Received: "
                             f"inputs={inputs}")
        columns = [tf.reshape(x, [-1, 1]) for x in inputs]
        crossed = tf.sparse.to_dense(tf.sparse.cross_hashed(columns, self.num_bins))
        crossed = tf.reshape(crossed, [-1] + list(shape[1:])) if rank else tf.reshape(crossed, [])
        if rank == 1:
            crossed = tf.reshape(crossed, [-1])
        return encode_categorical(crossed, self.output_mode, self.num_bins, tf.as_dtype(self._output_dtype),
                                  self.sparse)

    def compute_output_shape(self, input_shape):
        first = tuple(input_shape[0])
        if self.output_mode == "int":
            return first
        if first and first[-1] == 1:
            return first[:-1] + (self.num_bins,)
        return first + (self.num_bins,)

    def get_config(self):
        # Keras writes this layer's dtype as a bare name, not as a DTypePolicy.
        return {"num_bins": self.num_bins, "output_mode": self.output_mode, "sparse": self.sparse, "name": self.name,
                "dtype": self._output_dtype}


API = {"keras.layers": ["Hashing", "HashedCrossing"]}
