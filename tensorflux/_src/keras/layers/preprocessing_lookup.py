"""Vocabulary lookup layers: StringLookup and IntegerLookup (and their shared base, IndexLookup).

A layer's vocabulary lives in a `_Table` (token -> index), the counterpart of TensorFlow's hash-table
resource: the lookup op receives the table object itself as an attribute and reads it when it runs, so a
traced function or a `Dataset.map` made before `adapt()`/`set_vocabulary()` sees the new vocabulary, as
with Keras on TensorFlow. Indices follow Keras 3: the mask token (when set, in "int" mode) is 0, then the
`num_oov_indices` OOV indices, then the vocabulary; with several OOV indices an unknown token goes to the
bucket of its FarmHash64 (strings, and integers with `oov_method="farmhash"`; SipHash with `salt`) or of
`token % num_oov_indices` (integers by default). `adapt` counts tokens and keeps the most frequent first,
ties broken by the larger token (Keras' reversed lexsort). Vocabularies are saved in a `.keras` archive as
Keras does (`vocabulary.txt` among the layer's assets; TF-IDF weights as the dataset `vars/idf_weights` of
the layer's group in the weights file, through save_own_variables/load_own_variables). A SavedModel export of
these layers (TensorFlow's hash-table resources) is not written yet: `model.export` refuses it by name.
"""
import collections
import os

import numpy as np

import tensorflux as tf

from ...framework import errors
from ...ops.fingerprints import fingerprint64, siphash24
from ...ops.registry import OpDef, apply
from ...types import dtypes as _dt
from .layer import Layer
from .preprocessing_encoding import _base_config, _salt_pair, encode_categorical

_MODES = ("int", "one_hot", "multi_hot", "count", "tf_idf")
_INT64_MAX = np.iinfo(np.int64).max
_MASK64 = (1 << 64) - 1   # SipHash key words are unsigned 64-bit


class _Table:
    """The token -> index mapping a lookup op reads at run time, with what the op needs to place
    unknown and mask tokens (fixed when the layer is made)."""

    def __init__(self, layer):
        self.index = {}
        self.string_keys = layer.vocabulary_dtype == "string"
        self.mask = None if layer.mask_token is None else self._key(layer.mask_token)
        self.mask_value = 0 if layer.output_mode == "int" else _INT64_MAX
        self.num_oov = layer.num_oov_indices
        self.oov_start = layer._oov_start_index()
        self.hash_integers = layer.oov_method == "farmhash"
        self.salt = layer.salt

    def _key(self, token):
        if self.string_keys:
            return token.encode("utf-8") if isinstance(token, str) else bytes(token)
        return int(token)

    def fill(self, tokens, first_index):
        self.index = {self._key(t): first_index + i for i, t in enumerate(tokens)}

    def __repr__(self):       # shown in graph dumps
        return f"<vocabulary of {len(self.index)} tokens>"

    def _oov_bucket(self, token):
        if self.string_keys or self.hash_integers:
            data = token if self.string_keys else str(int(token)).encode()
            code = siphash24(data, *(k & _MASK64 for k in self.salt)) if self.salt is not None else fingerprint64(data)
            return code % self.num_oov
        return int(token) % self.num_oov

    awaiting = None     # what to name in the error while a revived layer waits for its vocabulary

    def check_filled(self):
        if self.awaiting is not None:
            raise NotImplementedError(
                f"The vocabulary of {self.awaiting} was not restored: the layer was made from the config of an "
                f"adapted layer, whose vocabulary Keras keeps in the `.keras` archive's assets/.../vocabulary.txt "
                f"(read only where the loader hands them to load_assets). Call `adapt()`, `set_vocabulary()` or "
                f"`load_assets(dir)` on it, or create it with `vocabulary=`.")

    def lookup(self, keys):
        """Indices of `keys` (a NumPy array of bytes objects or integers), as int64."""
        self.check_filled()
        flat = keys.reshape(-1).tolist()
        get, default = self.index.get, (self.oov_start if self.num_oov == 1 else -1)
        out = [get(k, default) for k in flat]
        if self.mask is not None:
            out = [self.mask_value if k == self.mask else v for k, v in zip(flat, out)]
        if self.num_oov > 1:
            out = [self.oov_start + self._oov_bucket(k) if v == -1 else v for k, v in zip(flat, out)]
        elif self.num_oov == 0 and -1 in out:
            unknown = [k for k, v in zip(flat, out) if v == -1]
            raise errors.InvalidArgumentError(None, "LookupTableFindV2", (
                f"assertion failed: [When `num_oov_indices=0` all inputs should be in vocabulary, found OOV "
                f"values {unknown}, consider setting `num_oov_indices=1`.]"))
        return np.asarray(out, np.int64).reshape(keys.shape)


class _InverseTable(_Table):
    """index -> token, for `invert=True`; unknown indices give the OOV token, index 0 the mask token."""

    def fill(self, tokens, first_index):
        self.index = {first_index + i: self._key(t) for i, t in enumerate(tokens)}
        self.tokens = tokens

    def lookup(self, keys):
        self.check_filled()
        flat = keys.reshape(-1).tolist()
        get, default = self.index.get, self.oov_token
        out = [self.mask if (k == 0 and self.mask is not None) else get(k, default) for k in flat]
        if self.string_keys:
            return np.asarray(out, object).reshape(keys.shape)
        return np.asarray(out, np.int64).reshape(keys.shape)


def _lookup_infer(inputs, attrs):
    table = attrs["table"]
    dtype = (_dt.string if table.string_keys else _dt.int64) if isinstance(table, _InverseTable) else _dt.int64
    return [(dtype, inputs[0].shape)]


def _lookup_kernel(keys, table):
    return table.lookup(np.asarray(keys))


# Stateful: the table's contents change without the graph knowing, so the op is never folded or pruned.
_LOOKUP = OpDef("KerasVocabularyLookup", _lookup_infer, _lookup_kernel, stateful=True, input_names=("keys",))


def _listify(value):
    if isinstance(value, (tf.Tensor, tf.Variable)):
        value = value.numpy()
    if isinstance(value, np.ndarray):
        value = value.tolist()
    return value


class IndexLookup(Layer):
    """Maps tokens to vocabulary indices (or back, with `invert=True`), then optionally encodes them."""

    _allow_non_tensor_positional_args = True     # a Keras data layer: Python values are accepted

    def __init__(self, max_tokens, num_oov_indices, mask_token, oov_token, vocabulary_dtype, vocabulary=None,
                 idf_weights=None, invert=False, output_mode="int", sparse=False, pad_to_max_tokens=False,
                 oov_method="floormod", name=None, salt=None, vocabulary_size=None, **kwargs):
        if max_tokens is not None and max_tokens <= 1:
            raise ValueError(f"If set, `max_tokens` must be greater than 1. Received: max_tokens={max_tokens}")
        if pad_to_max_tokens and max_tokens is None:
            raise ValueError(f"If pad_to_max_tokens is True, must set `max_tokens`. Received: "
                             f"max_tokens={max_tokens}")
        if num_oov_indices < 0:
            raise ValueError(f"`num_oov_indices` must be greater than or equal to 0. Received: "
                             f"num_oov_indices={num_oov_indices}")
        if oov_method not in ("floormod", "farmhash"):
            raise ValueError(f"Unkown value for `oov_method` argument of layer {type(self).__name__}. Allowed "
                             f"values are: ('floormod', 'farmhash'). Received: {oov_method}")
        if salt is not None and vocabulary_dtype != "string" and oov_method != "farmhash":
            raise ValueError(f"`salt` can only be used when `oov_method='farmhash'`. Received: "
                             f"oov_method={oov_method}")
        output_mode = {"binary": "multi_hot", "tf-idf": "tf_idf"}.get(output_mode, output_mode)
        if output_mode not in _MODES:
            raise ValueError(f"Unkown value for `output_mode` argument of layer {type(self).__name__}. Allowed "
                             f"values are: {_MODES}. Received: {output_mode}")
        if invert and output_mode != "int":
            raise ValueError(f"`output_mode` must be `'int'` when `invert` is true. Received: "
                             f"output_mode={output_mode}")
        if sparse and output_mode == "int":
            raise ValueError(f"`sparse` may only be true if `output_mode` is `'one_hot'`, `'multi_hot'`, "
                             f"`'count'` or `'tf_idf'`. Received: sparse={sparse} and output_mode={output_mode}")
        if idf_weights is not None and output_mode != "tf_idf":
            raise ValueError(f"`idf_weights` should only be set if `output_mode` is `'tf_idf'`. Received: "
                             f"idf_weights={idf_weights} and output_mode={output_mode}")
        has_input_vocabulary = kwargs.pop("has_input_vocabulary", vocabulary is not None)
        kwargs.pop("trainable", None)
        kwargs.pop("dtype", None)
        if kwargs:
            raise ValueError(f"Unrecognized keyword argument(s): {kwargs}")
        super().__init__(name=name)
        self.invert = invert
        self.max_tokens = max_tokens
        self.num_oov_indices = num_oov_indices
        self.mask_token = mask_token
        self.oov_token = oov_token
        self.output_mode = output_mode
        self.sparse = sparse
        self.pad_to_max_tokens = pad_to_max_tokens
        self.vocabulary_dtype = vocabulary_dtype
        self.oov_method = oov_method
        self.salt = _salt_pair(salt, "IndexLookup")
        self._frozen_vocab_size = vocabulary_size      # written by get_config once the vocabulary is known
        self.input_vocabulary = vocabulary if not isinstance(vocabulary, str) else None
        self.input_idf_weights = idf_weights
        self._has_input_vocabulary = has_input_vocabulary
        self._table = _InverseTable(self) if invert else _Table(self)
        # A layer made from the config of an adapted one waits for its vocabulary (a `.keras` archive's
        # assets, given to load_assets); until then its lookups fail instead of mapping every token to OOV.
        self._table.awaiting = f"layer '{self.name}' (vocabulary_size={vocabulary_size})" if (
            vocabulary is None and not has_input_vocabulary and vocabulary_size is not None
            and vocabulary_size > self._token_start_index_for(mask_token, output_mode, num_oov_indices)) else None
        if invert:
            self._table.oov_token = self._table._key(oov_token) if oov_token is not None else None
            self._table.mask = None if mask_token is None else self._table._key(mask_token)
        self._tokens = []               # the learned / given vocabulary, in index order
        self.idf_weights = None
        if output_mode == "tf_idf":
            if has_input_vocabulary and idf_weights is None:
                raise ValueError("When specifying the `vocabulary` argument, in TF-IDF output mode, the "
                                 "`idf_weights` argument must also be provided.")
            if idf_weights is not None:
                self.idf_weights = np.asarray(_listify(idf_weights), np.float32)
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)
        self._counts = collections.Counter()
        self._document_counts = collections.Counter()
        self._num_documents = 0

    # -- the vocabulary ------------------------------------------------------------------------
    @staticmethod
    def _token_start_index_for(mask_token, output_mode, num_oov_indices):
        return (1 if mask_token is not None and output_mode == "int" else 0) + num_oov_indices

    def _oov_start_index(self):
        return 1 if self.mask_token is not None and self.output_mode == "int" else 0

    def _token_start_index(self):
        return self._oov_start_index() + self.num_oov_indices

    def vocabulary_size(self):
        """The vocabulary's size, mask and OOV indices included."""
        return len(self._tokens) + self._token_start_index()

    def _vocabulary_entry(self, token):
        """A learned token as Keras' get_vocabulary() gives it (decoded NumPy strings, NumPy integers)."""
        if self.vocabulary_dtype == "string":
            return np.str_(token.decode("utf-8") if isinstance(token, bytes) else token)
        return np.int64(token)

    def get_vocabulary(self, include_special_tokens=True):
        """The vocabulary, its special tokens first unless `include_special_tokens=False`."""
        vocab = [self.oov_token] * self._token_start_index() + [self._vocabulary_entry(t) for t in self._tokens]
        if self.mask_token is not None and self.output_mode == "int":
            vocab[0] = self.mask_token
        if not include_special_tokens:
            vocab = vocab[self._token_start_index():]
        return vocab

    def _record_vocabulary_size(self):
        if self.output_mode != "int" and not self.pad_to_max_tokens:
            size = self.vocabulary_size()
            if self._frozen_vocab_size is not None and size != self._frozen_vocab_size:
                raise RuntimeError(f"When using `output_mode={self.output_mode}` and `pad_to_max_tokens=False`, "
                                   f"the vocabulary size cannot be changed after the layer is called. Old vocab "
                                   f"size is {self._frozen_vocab_size}, new vocab size is {size}")
        self._frozen_vocab_size = self.vocabulary_size()

    def _set_tokens(self, tokens):
        self._table.awaiting = None
        self._tokens = list(tokens)
        self._table.fill(self._tokens, self._token_start_index())

    def set_vocabulary(self, vocabulary, idf_weights=None):
        """Replaces the vocabulary (a list, array or 1-D tensor of tokens, or a text file with one token a
        line) and, in "tf_idf" mode, the IDF weights."""
        if self.output_mode == "tf_idf":
            if idf_weights is None:
                raise ValueError("`idf_weights` must be set if output_mode is 'tf_idf'.")
        elif idf_weights is not None:
            raise ValueError(f"`idf_weights` should only be set if output_mode is `'tf_idf'`. Received: "
                             f"output_mode={self.output_mode} and idf_weights={idf_weights}")
        if isinstance(vocabulary, str):
            if not tf.io.gfile.exists(vocabulary):
                raise ValueError(f"Vocabulary file {vocabulary} does not exist.")
            if self.output_mode == "tf_idf":
                raise ValueError("output_mode `'tf_idf'` does not support loading a vocabulary from file.")
            with tf.io.gfile.GFile(vocabulary, "r") as f:
                lines = f.read().splitlines()
            vocabulary = lines if self.vocabulary_dtype == "string" else [int(line) for line in lines]
        vocabulary = _listify(vocabulary)
        vocabulary = [v.decode("utf-8") if isinstance(v, bytes) else v for v in vocabulary]
        if not vocabulary:
            raise ValueError(f"Cannot set an empty vocabulary. Received: vocabulary={np.array(vocabulary)}")
        token_start = self._token_start_index()
        special = [self.mask_token] * self._oov_start_index() + [self.oov_token] * self.num_oov_indices
        found_special = list(vocabulary[:token_start]) == special
        tokens = vocabulary[token_start:] if found_special else vocabulary
        repeated = [t for t, n in collections.Counter(tokens).items() if n > 1]
        if repeated:
            raise ValueError(f"The passed vocabulary has at least one repeated term. Please uniquify your "
                             f"dataset. The repeated terms are: {repeated}")
        for token, what in ((self.mask_token, "mask_token"), (self.oov_token if self.invert else None, "oov_token")):
            if token is not None and token in tokens:
                index = max(i for i, t in enumerate(vocabulary) if t == token)
                raise ValueError(f"Found reserved {'mask' if what == 'mask_token' else 'OOV'} token at unexpected "
                                 f"location in `vocabulary`. Note that passed `vocabulary` does not need to "
                                 f"include the OOV and mask tokens. Either remove all mask and OOV tokens, or "
                                 f"include them only at the start of the vocabulary in precisely this order: "
                                 f"{special}. Received: {what}={token} at vocabulary index [{index}]")
        size = token_start + len(tokens)
        if self.max_tokens is not None and size > self.max_tokens:
            raise ValueError(f"Attempted to set a vocabulary larger than the maximum vocab size. Received "
                             f"vocabulary size is {size}; `max_tokens` is {self.max_tokens}.")
        self._set_tokens(tokens)
        self._record_vocabulary_size()
        if self.output_mode == "tf_idf":
            weights = np.asarray(_listify(idf_weights), np.float32)
            if len(vocabulary) != len(weights):
                raise ValueError(f"`idf_weights` must be the same length as vocabulary. len(idf_weights) is "
                                 f"{len(weights)}; len(vocabulary) is {len(vocabulary)}")
            if weights.ndim != 1:
                raise ValueError(f"TF-IDF data must be a 1-index array. Received: type(idf_weights)="
                                 f"{type(idf_weights)}")
            front = 0 if found_special else token_start
            back = self.max_tokens - front - len(weights) if self.pad_to_max_tokens and self.max_tokens else 0
            self.idf_weights = np.pad(weights, (front, back), constant_values=(np.average(weights), 0)) \
                .astype(np.float32)

    # -- adapt ---------------------------------------------------------------------------------
    def adapt(self, data, steps=None):
        """Learns the vocabulary (and IDF weights) from `data`: an array, list, tensor, RaggedTensor,
        tf.data.Dataset or other iterable of batches."""
        self.reset_state()
        if isinstance(data, tf.data.Dataset):
            for batch in (data.take(steps) if steps is not None else data):
                self.update_state(batch)
        elif hasattr(data, "__iter__") and not (isinstance(data, (list, tuple, np.ndarray, tf.RaggedTensor))
                                                or tf.is_tensor(data)):
            for i, batch in enumerate(data):
                if steps is not None and i >= steps:
                    break
                self.update_state(batch)
        else:
            data = self._as_keys(data)
            if not isinstance(data, tf.RaggedTensor) and data.shape.rank == 1:
                data = tf.expand_dims(data, -1)
            self.update_state(data)
        self.finalize_state()

    def _as_keys(self, data):
        if isinstance(data, (tf.RaggedTensor, tf.SparseTensor)):
            return data
        dtype = tf.string if self.vocabulary_dtype == "string" else tf.int64
        data = tf.convert_to_tensor(data) if not tf.is_tensor(data) else data
        return tf.cast(data, dtype) if data.dtype != dtype else data

    def _rows(self, data):
        """The rows (documents) of `data` as lists of tokens."""
        if isinstance(data, tf.RaggedTensor):
            return data.to_list()
        values = np.asarray(data.numpy())
        return values.reshape(values.shape[0], -1).tolist() if values.ndim else [[values.item()]]

    def update_state(self, data):
        if self._has_input_vocabulary:
            raise ValueError(f"Cannot adapt layer '{self.name}' after setting a static vocabulary via "
                             f"`vocabulary` argument or `set_vocabulary()` method.")
        data = self._as_keys(data)
        if isinstance(data, tf.SparseTensor):
            rows = [data.values.numpy().tolist()]
        else:
            if not isinstance(data, tf.RaggedTensor) and data.shape.rank == 1:
                data = tf.expand_dims(data, 0)
            rows = self._rows(data)
        for row in rows:
            self._counts.update(row)
            if self.output_mode == "tf_idf":
                self._document_counts.update(set(row))
        self._num_documents += len(rows)

    def finalize_state(self):
        if self._has_input_vocabulary or not self._counts:
            self._record_vocabulary_size()
            return
        for special in (self.mask_token, self.oov_token):
            if special is not None:
                self._counts.pop(self._table._key(special), None)
        ranked = sorted(self._counts.items(), key=lambda item: (item[1], item[0]), reverse=True)
        if self.max_tokens:
            ranked = ranked[:self.max_tokens - self._token_start_index()]
        tokens = [t for t, _ in ranked]
        self._set_tokens(tokens)
        if self.output_mode == "tf_idf":
            frequencies = np.asarray([self._document_counts[t] for t in tokens], np.float64)
            idf = np.log(1 + self._num_documents / (1 + frequencies)).astype(np.float32)
            idf = np.pad(idf, (self._token_start_index(), 0), constant_values=np.mean(idf))
            if self.pad_to_max_tokens and self.max_tokens is not None:
                idf = np.pad(idf, (0, self.max_tokens - idf.size))
            self.idf_weights = idf.astype(np.float32)
        self.reset_state()
        self._record_vocabulary_size()

    def reset_state(self):
        if self._has_input_vocabulary:
            return
        self._counts = collections.Counter()
        self._document_counts = collections.Counter()
        self._num_documents = 0

    # -- calling -------------------------------------------------------------------------------
    def _lookup(self, keys):
        return apply(_LOOKUP, (keys,), {"table": self._table}, "LookupTableFindV2")

    def call(self, inputs):
        if self.output_mode != "int" and not self.pad_to_max_tokens and self._frozen_vocab_size is None:
            raise RuntimeError(f"When using `output_mode={self.output_mode}` and `pad_to_max_tokens=False`, you "
                               f"must set the layer's vocabulary before calling it. Either pass a `vocabulary` "
                               f"argument to the layer, or call `adapt` with some sample data.")
        key_dtype = tf.int64 if self.invert else (tf.string if self.vocabulary_dtype == "string" else tf.int64)
        if isinstance(inputs, (tf.RaggedTensor, tf.SparseTensor)):
            keys = inputs
        else:
            keys = tf.convert_to_tensor(inputs) if not tf.is_tensor(inputs) else inputs
            if keys.dtype != key_dtype:
                keys = tf.cast(keys, key_dtype)
        scalar = not isinstance(keys, (tf.RaggedTensor, tf.SparseTensor)) and keys.shape.rank == 0
        if scalar:
            keys = tf.expand_dims(keys, -1)
        if isinstance(keys, tf.RaggedTensor):
            ids = tf.ragged.map_flat_values(self._lookup, keys)
        elif isinstance(keys, tf.SparseTensor):
            ids = tf.SparseTensor(keys.indices, self._lookup(keys.values), keys.dense_shape)
        else:
            ids = self._lookup(keys)
        if self.output_mode == "int":
            return tf.squeeze(ids, -1) if scalar else ids
        depth = self.max_tokens if self.pad_to_max_tokens else self._frozen_vocab_size
        if self.output_mode == "tf_idf":
            counts = encode_categorical(ids, "count", depth, tf.float32, False)
            # No weights yet while a saved model is revived (they come from its weights file next): zeros,
            # as Keras' not yet filled IDF table.
            idf = tf.zeros([depth], tf.float32) if self.idf_weights is None else tf.constant(self.idf_weights)
            outputs = counts * idf
            return tf.sparse.from_dense(outputs) if self.sparse else outputs
        return encode_categorical(ids, self.output_mode, depth, tf.int64, self.sparse)

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        if self.output_mode == "int":
            return input_shape
        depth = self.max_tokens if self.pad_to_max_tokens else self._frozen_vocab_size
        if self.output_mode == "one_hot":
            if len(input_shape) > 1 and input_shape[-1] == 1:
                return input_shape[:-1] + (depth,)
            return input_shape + (depth,)
        return input_shape[:-1] + (depth,)

    # -- configuration and saving --------------------------------------------------------------
    def get_config(self):
        return {**_base_config(self), "invert": self.invert, "max_tokens": self.max_tokens,
                "num_oov_indices": self.num_oov_indices, "oov_token": self.oov_token,
                "mask_token": self.mask_token, "output_mode": self.output_mode, "sparse": self.sparse,
                "pad_to_max_tokens": self.pad_to_max_tokens, "vocabulary_dtype": self.vocabulary_dtype,
                "idf_weights": _listify(self.input_idf_weights), "vocabulary": _listify(self.input_vocabulary),
                "vocabulary_size": self._frozen_vocab_size, "oov_method": self.oov_method, "salt": self.salt}

    def get_build_config(self):
        return {}

    def build_from_config(self, config):
        self.built = True

    # What Keras stores beside the numbered variables, under these names, in the layer's `vars` group of a
    # weights file (the reader's allow-list: names in a file never choose what is read).
    _keras_named_weights = ("idf_weights",)

    def save_own_variables(self, store):
        if self.output_mode == "tf_idf" and self.idf_weights is not None:
            store["idf_weights"] = np.asarray(self.idf_weights, np.float32)

    def load_own_variables(self, store):
        if self.output_mode == "tf_idf" and "idf_weights" in store:
            weights = np.asarray(store["idf_weights"], np.float32)
            if weights.ndim != 1:
                raise ValueError(f"Layer '{self.name}': `idf_weights` must be a 1-D array. Received: shape="
                                 f"{weights.shape}")
            self.idf_weights = weights

    def save_assets(self, dir_path):
        if self.input_vocabulary is not None:
            return
        with open(os.path.join(dir_path, "vocabulary.txt"), "w") as f:
            f.write("\n".join(str(w) for w in self.get_vocabulary(include_special_tokens=True)))

    def load_assets(self, dir_path):
        if self.input_vocabulary is not None:
            return
        with open(os.path.join(dir_path, "vocabulary.txt")) as f:
            lines = f.read().splitlines()
        while lines and lines[-1] == "":
            lines.pop()
        values = lines if self.vocabulary_dtype == "string" else [int(line) for line in lines]
        stored_idf = self.idf_weights if self.output_mode == "tf_idf" else None
        if self.output_mode == "tf_idf" and stored_idf is None:
            raise ValueError(f"Layer '{self.name}' (output_mode='tf_idf'): the weights file has no `idf_weights` "
                             f"for its vocabulary (Keras stores them in the layer's vars/idf_weights).")
        if stored_idf is not None and stored_idf.size < len(values):
            raise ValueError(f"Layer '{self.name}': the stored `idf_weights` have {stored_idf.size} entries for a "
                             f"vocabulary of {len(values)} tokens.")
        has_input = self._has_input_vocabulary
        self._has_input_vocabulary = False
        # The stored IDF array is the layer's whole one (special tokens and max_tokens padding included),
        # as Keras keeps it: the vocabulary is set with its matching part, then the array is put back whole.
        self.set_vocabulary(values, idf_weights=None if stored_idf is None else stored_idf[:len(values)])
        if stored_idf is not None:
            self.idf_weights = stored_idf
        self._has_input_vocabulary = has_input


class StringLookup(IndexLookup):
    """Maps strings to integer indices from a vocabulary given or learned with `adapt`."""

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token="[UNK]", vocabulary=None,
                 idf_weights=None, invert=False, output_mode="int", pad_to_max_tokens=False, sparse=False,
                 encoding="utf-8", name=None, salt=None, **kwargs):
        self.encoding = encoding
        super().__init__(max_tokens=max_tokens, num_oov_indices=num_oov_indices, mask_token=mask_token,
                         oov_token=oov_token, vocabulary=vocabulary, idf_weights=idf_weights, invert=invert,
                         output_mode=output_mode, pad_to_max_tokens=pad_to_max_tokens, sparse=sparse, name=name,
                         salt=salt, vocabulary_dtype="string", **kwargs)

    def get_config(self):
        config = super().get_config()
        del config["vocabulary_dtype"]
        return {**config, "encoding": self.encoding}


class IntegerLookup(IndexLookup):
    """Maps integers to contiguous indices from a vocabulary given or learned with `adapt`."""

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token=-1, vocabulary=None,
                 vocabulary_dtype="int64", idf_weights=None, invert=False, output_mode="int", sparse=False,
                 pad_to_max_tokens=False, oov_method="floormod", salt=None, name=None, **kwargs):
        if max_tokens is not None and max_tokens <= 1:
            raise ValueError(f"If `max_tokens` is set for `IntegerLookup`, it must be greater than 1. Received: "
                             f"max_tokens={max_tokens}")
        if num_oov_indices < 0:
            raise ValueError(f"The value of `num_oov_indices` argument for `IntegerLookup` must >= 0. Received: "
                             f"num_oov_indices={num_oov_indices}")
        if vocabulary_dtype != "int64":
            raise ValueError(f"Only `vocabulary_dtype='int64'` is supported at this time. Received: "
                             f"vocabulary_dtype={vocabulary_dtype}")
        super().__init__(max_tokens=max_tokens, num_oov_indices=num_oov_indices, mask_token=mask_token,
                         oov_token=oov_token, vocabulary=vocabulary, vocabulary_dtype=vocabulary_dtype,
                         idf_weights=idf_weights, invert=invert, output_mode=output_mode, sparse=sparse,
                         pad_to_max_tokens=pad_to_max_tokens, oov_method=oov_method, salt=salt, name=name,
                         **kwargs)

    def get_config(self):
        config = super().get_config()
        for key in ("oov_token", "mask_token"):
            if config[key] is not None:
                config[key] = int(config[key])
        if config["vocabulary"] is not None:
            config["vocabulary"] = [int(v) for v in config["vocabulary"]]
        return config


API = {"keras.layers": ["StringLookup", "IntegerLookup"]}
