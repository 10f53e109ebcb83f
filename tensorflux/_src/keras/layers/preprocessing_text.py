"""TextVectorization: strings to token indices or to multi-hot / count / TF-IDF vectors.

The steps are Keras 3's, written with tensorflux's string and ragged ops so that the layer also works on
symbolic tensors (inside `Dataset.map`, `tf.function` and functional models): standardize (lower-case
and/or strip ASCII punctuation, or a callable), split (on whitespace, into characters, or a callable) into
a RaggedTensor, optional n-grams joined by spaces, then a StringLookup whose mask token is "" (index 0, the
padding of "int" outputs) and whose OOV token is "[UNK]" (index 1).
"""
import numpy as np

import tensorflux as tf

from .layer import Layer
from .preprocessing_encoding import _base_config
from .preprocessing_lookup import StringLookup, _listify

# Keras' punctuation class: ASCII punctuation, removed before splitting.
_PUNCTUATION = r'[!"#$%&()\*\+,-\./:;<=>?@\[\\\]^_`{|}~\']'
_STANDARDIZE = ("lower_and_strip_punctuation", "lower", "strip_punctuation")
_SPLIT = ("whitespace", "character")
_MODES = ("int", "one_hot", "multi_hot", "count", "tf_idf")


def _check_choice(value, allowed, arg):
    if value is None or callable(value) or value in allowed:
        return
    raise ValueError(f"Unkown value for `{arg}` argument of layer TextVectorization. If restoring a model "
                     f"from a config, the `{arg}` argument must be one of: {allowed}, None, or a callable. "
                     f"Received: {arg}={value}")


class TextVectorization(Layer):
    """Turns strings into sequences of token indices, or into one vector per string."""

    _allow_non_tensor_positional_args = True     # a Keras data layer: Python values are accepted

    def __init__(self, max_tokens=None, standardize="lower_and_strip_punctuation", split="whitespace", ngrams=None,
                 output_mode="int", output_sequence_length=None, pad_to_max_tokens=False, vocabulary=None,
                 idf_weights=None, sparse=False, ragged=False, encoding="utf-8", name=None, vocabulary_size=None,
                 **kwargs):
        _check_choice(standardize, _STANDARDIZE, "standardize")
        _check_choice(split, _SPLIT, "split")
        output_mode = {"binary": "multi_hot", "tf-idf": "tf_idf"}.get(output_mode, output_mode)
        if output_mode not in _MODES:
            raise ValueError(f"Unkown value for `output_mode` argument of layer TextVectorization. Allowed values "
                             f"are: {_MODES}. Received: {output_mode}")
        if not (ngrams is None or isinstance(ngrams, int)
                or (isinstance(ngrams, tuple) and all(isinstance(n, int) for n in ngrams))):
            raise ValueError(f"`ngrams` must be None, an integer, or a tuple of integers. Received: ngrams={ngrams}")
        if output_mode == "int" and not (isinstance(output_sequence_length, int) or output_sequence_length is None):
            raise ValueError(f"`output_sequence_length` must be either None or an integer when `output_mode` is "
                             f"'int'. Received: output_sequence_length={output_sequence_length}")
        if output_mode != "int" and output_sequence_length is not None:
            raise ValueError(f"`output_sequence_length` must not be set if `output_mode` is not 'int'. Received "
                             f"output_sequence_length={output_sequence_length}.")
        if ragged and output_mode != "int":
            raise ValueError(f"`ragged` must not be true if `output_mode` is `'int'`. Received: ragged={ragged} "
                             f"and output_mode={output_mode}")
        has_input_vocabulary = kwargs.pop("has_input_vocabulary", vocabulary is not None)
        kwargs.pop("dtype", None)       # strings in, ints or floats out: Keras' policy entry is informative
        super().__init__(name=name, **kwargs)
        self._max_tokens = max_tokens
        self._standardize = standardize
        self._split = split
        self._ngrams_arg = ngrams
        self._ngrams = tuple(range(1, ngrams + 1)) if isinstance(ngrams, int) else ngrams
        self._ragged = ragged
        self._output_mode = output_mode
        self._output_sequence_length = output_sequence_length
        self._encoding = encoding
        self._lookup_layer = StringLookup(max_tokens=max_tokens, vocabulary=vocabulary, idf_weights=idf_weights,
                                          pad_to_max_tokens=pad_to_max_tokens, mask_token="",
                                          output_mode=output_mode, sparse=sparse,
                                          has_input_vocabulary=has_input_vocabulary, encoding=encoding,
                                          vocabulary_size=vocabulary_size)

    def build(self, input_shape=None):
        self.built = True

    # -- vocabulary ----------------------------------------------------------------------------
    def adapt(self, data, batch_size=None, steps=None):
        """Learns the vocabulary from strings: a list, array, tensor, tf.data.Dataset or iterable of batches."""
        self.reset_state()
        if isinstance(data, tf.data.Dataset):
            for batch in (data.take(steps) if steps is not None else data):
                self.update_state(batch)
        elif hasattr(data, "__iter__") and not (isinstance(data, (list, tuple, np.ndarray)) or tf.is_tensor(data)):
            for i, batch in enumerate(data):
                if steps is not None and i >= steps:
                    break
                self.update_state(batch)
        else:
            data = tf.convert_to_tensor(data, tf.string) if not tf.is_tensor(data) else data
            if data.shape.rank == 1:
                data = tf.expand_dims(data, -1)
            self.update_state(data)
        self.finalize_state()

    def update_state(self, data):
        self._lookup_layer.update_state(self._preprocess(data))

    def finalize_state(self):
        self._lookup_layer.finalize_state()

    def reset_state(self):
        self._lookup_layer.reset_state()

    def get_vocabulary(self, include_special_tokens=True):
        return self._lookup_layer.get_vocabulary(include_special_tokens)

    def vocabulary_size(self):
        return self._lookup_layer.vocabulary_size()

    def set_vocabulary(self, vocabulary, idf_weights=None):
        self._lookup_layer.set_vocabulary(vocabulary, idf_weights=idf_weights)

    # -- calling -------------------------------------------------------------------------------
    def _preprocess(self, inputs):
        if not isinstance(inputs, tf.RaggedTensor):
            inputs = tf.convert_to_tensor(inputs, tf.string) if not tf.is_tensor(inputs) else inputs
            if inputs.dtype != tf.string:
                raise ValueError(f"TextVectorization expects string inputs. Received: inputs.dtype={inputs.dtype}")
        if self._standardize in ("lower", "lower_and_strip_punctuation"):
            inputs = tf.strings.lower(inputs)
        if self._standardize in ("strip_punctuation", "lower_and_strip_punctuation"):
            inputs = tf.strings.regex_replace(inputs, _PUNCTUATION, "")
        if callable(self._standardize):
            inputs = self._standardize(inputs)
        if self._split is not None:
            if inputs.shape.rank > 1:
                if inputs.shape[-1] != 1:
                    raise ValueError(f"When using `TextVectorization` to tokenize strings, the input rank must be "
                                     f"1 or the last shape dimension must be 1. Received: inputs.shape="
                                     f"{inputs.shape} with rank={inputs.shape.rank}")
                inputs = tf.squeeze(inputs, axis=-1)
            if self._split == "whitespace":
                inputs = tf.strings.split(inputs)
            elif self._split == "character":
                inputs = tf.strings.unicode_split(inputs, "UTF-8")
            else:
                inputs = self._split(inputs)
        if self._ngrams is not None:
            inputs = tf.strings.ngrams(inputs, ngram_width=self._ngrams, separator=" ")
        return inputs

    def call(self, inputs):
        ids = self._lookup_layer(self._preprocess(inputs))
        if self._output_mode != "int":
            return ids
        length = self._output_sequence_length
        if isinstance(ids, tf.RaggedTensor):
            if self._ragged:
                return ids if length is None else ids[:, :length]
            shape = ids.shape.as_list()
            shape[-1] = length
            dense = ids.to_tensor(default_value=0, shape=shape)
            dense.set_shape(shape)      # a fixed output_sequence_length is part of the static shape
            return dense
        if length is None:
            return ids
        ids = ids[..., :length]
        if self._ragged:
            return ids
        missing = length - tf.shape(ids)[-1]
        rank = ids.shape.rank
        ids = tf.pad(ids, [[0, 0]] * (rank - 1) + [[0, missing]])
        static = ids.shape.as_list()
        static[-1] = length
        ids.set_shape(static)
        return ids

    def _symbolic_call(self, first, args, kwargs):
        # Keras 3 gives a functional call the shape compute_output_shape() promises, which for split text
        # keeps the input's axes: a (None, 1) string input makes (None, 1, vocabulary) multi-hot vectors.
        outputs = super()._symbolic_call(first, args, kwargs)
        if self._output_mode != "int" and hasattr(outputs, "_shape"):
            outputs._shape = tuple(self.compute_output_shape(first.shape))
        return outputs

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        if self._output_mode == "int":
            return (input_shape[0], self._output_sequence_length)
        if self._split is None:
            if len(input_shape) <= 1:
                input_shape = input_shape + (1,)
        else:
            input_shape = input_shape + (None,)
        return self._lookup_layer.compute_output_shape(input_shape)

    # -- configuration and saving --------------------------------------------------------------
    def get_config(self):
        lookup = self._lookup_layer
        return {**_base_config(self), "max_tokens": lookup.max_tokens, "standardize": self._standardize,
                "split": self._split, "ngrams": self._ngrams_arg, "output_mode": self._output_mode,
                "output_sequence_length": self._output_sequence_length,
                "pad_to_max_tokens": lookup.pad_to_max_tokens, "sparse": lookup.sparse, "ragged": self._ragged,
                "vocabulary": _listify(lookup.input_vocabulary), "idf_weights": _listify(lookup.input_idf_weights),
                "encoding": self._encoding, "vocabulary_size": self.vocabulary_size()}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        if isinstance(config.get("ngrams"), list):
            config["ngrams"] = tuple(config["ngrams"])
        for key in ("standardize", "split"):
            if config.get(key) is not None and not isinstance(config[key], str) and not callable(config[key]):
                config[key] = tf.keras.saving.deserialize_keras_object(config[key])
        return cls(**config)

    def get_build_config(self):
        return {}

    def build_from_config(self, config):
        self.built = True

    _keras_named_weights = ("idf_weights",)      # Keras stores its lookup layer's IDF weights here too

    def save_own_variables(self, store):
        self._lookup_layer.save_own_variables(store)

    def load_own_variables(self, store):
        self._lookup_layer.load_own_variables(store)

    def save_assets(self, dir_path):
        self._lookup_layer.save_assets(dir_path)

    def load_assets(self, dir_path):
        self._lookup_layer.load_assets(dir_path)


API = {"keras.layers": ["TextVectorization"]}
