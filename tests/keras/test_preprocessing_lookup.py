"""StringLookup, IntegerLookup, TextVectorization and Hashing against values recorded from TensorFlow 2.21 /
Keras 3.15: each case below runs unchanged on either library (`tf` is a parameter); EXPECTED holds what the
same case returned under TensorFlow (regenerate with `~/venv-tf/bin/python tests/keras/test_preprocessing_lookup.py`).
"""
import json
import sys

import numpy as np

try:
    import pytest
except ImportError:     # regenerating EXPECTED under TensorFlow's interpreter, which lacks pytest
    pytest = None

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def _values(x):
    """A JSON-able form of a layer output or vocabulary (bytes and NumPy scalars decoded)."""
    if hasattr(x, "numpy"):
        x = x.numpy()
    if isinstance(x, np.ndarray):
        x = x.tolist()
    if isinstance(x, (list, tuple)):
        return [_values(v) for v in x]
    if isinstance(x, bytes):
        return x.decode()
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, float):
        return round(x, 5)
    return x


@case
def string_lookup_adapt_ties_and_mask(tf):
    layer = tf.keras.layers.StringLookup(mask_token="")
    layer.adapt(["b", "a", "c", "a", "b", "d", ""])
    return [_values(layer.get_vocabulary()), layer.vocabulary_size(),
            _values(layer(tf.constant([["a", "", "zz"], ["d", "c", "b"]])))]


@case
def string_lookup_max_tokens_and_special_tokens_excluded(tf):
    layer = tf.keras.layers.StringLookup(max_tokens=3)
    layer.adapt(tf.data.Dataset.from_tensor_slices([["x", "y"], ["x", "z"], ["x", "y"]]).batch(2))
    return [_values(layer.get_vocabulary()), _values(layer.get_vocabulary(include_special_tokens=False)),
            _values(layer(["x", "y", "z"]))]


@case
def string_lookup_invert(tf):
    layer = tf.keras.layers.StringLookup(vocabulary=["a", "b", "c"], invert=True, mask_token="[MASK]")
    return _values(layer(tf.constant([[0, 1, 2], [3, 4, 9]])))


@case
def string_lookup_several_oov_buckets(tf):
    layer = tf.keras.layers.StringLookup(vocabulary=["a"], num_oov_indices=4)
    salted = tf.keras.layers.StringLookup(vocabulary=["a"], num_oov_indices=4, salt=17)
    words = ["a", "quick", "brown", "fox", "jumps", "over"]
    return [_values(layer(words)), _values(salted(words)), _values(layer.get_vocabulary())]


@case
def string_lookup_count_and_multi_hot(tf):
    data = tf.constant([["a", "b", "a"], ["c", "c", "q"]])
    count = tf.keras.layers.StringLookup(vocabulary=["a", "b", "c"], output_mode="count")
    multi = tf.keras.layers.StringLookup(vocabulary=["a", "b", "c"], output_mode="multi_hot", pad_to_max_tokens=True,
                                         max_tokens=6)
    return [_values(count(data)), _values(multi(data)), str(multi(data).dtype)]


@case
def string_lookup_tf_idf(tf):
    layer = tf.keras.layers.StringLookup(output_mode="tf_idf")
    layer.adapt([["a", "b", "a"], ["a", "c", "c"], ["d", "a", "b"]])
    given = tf.keras.layers.StringLookup(vocabulary=["a", "b"], idf_weights=[0.5, 2.0], output_mode="tf_idf")
    return [_values(layer([["a", "c", "c", "z"]])), _values(layer.get_vocabulary()),
            _values(given([["a", "b", "b", "x"]]))]


@case
def integer_lookup_adapt_and_oov(tf):
    layer = tf.keras.layers.IntegerLookup(mask_token=0, num_oov_indices=2)
    layer.adapt(np.array([[7, 7, 3], [3, 7, 12], [0, 0, 5]]))
    return [_values(layer.get_vocabulary()), _values(layer(np.array([[7, 0, 4], [5, 12, 9]]))),
            _values(layer.get_config()["vocabulary_size"])]


@case
def integer_lookup_invert_and_config(tf):
    layer = tf.keras.layers.IntegerLookup(vocabulary=[12, 36, 1138, 42], invert=True)
    config = layer.get_config()
    return [_values(layer(tf.constant([1, 3, 4, 0, 7]))), sorted(config), config["vocabulary"]]


@case
def string_lookup_config(tf):
    config = tf.keras.layers.StringLookup(vocabulary=["x", "y"], num_oov_indices=2, name="lk").get_config()
    return [sorted(config), config["vocabulary"], config["vocabulary_size"], config["oov_token"]]


@case
def text_vectorization_int_sequence_length(tf):
    layer = tf.keras.layers.TextVectorization(max_tokens=8, output_sequence_length=5)
    layer.adapt(["The cat sat.", "The dog, the cat!", "A bird"])
    return [_values(layer.get_vocabulary()),
            _values(layer(["the cat and the dog ran far away", "bird"]))]


@case
def text_vectorization_standardize_split_options(tf):
    lower = tf.keras.layers.TextVectorization(standardize="lower", split="character",
                                              vocabulary=["a", "b", ",", "c"])
    raw = tf.keras.layers.TextVectorization(standardize=None, vocabulary=["Hi", "there!"])
    return [_values(lower(["AB,c", "cab"])), _values(raw(["Hi there! hi", "there!"]))]


@case
def text_vectorization_ngrams_count(tf):
    layer = tf.keras.layers.TextVectorization(ngrams=(1, 3), output_mode="count")
    layer.adapt(["a b c d", "b c d e"])
    return [_values(layer.get_vocabulary()), _values(layer(["a b c d e"])), layer.vocabulary_size()]


@case
def text_vectorization_in_dataset_map(tf):
    layer = tf.keras.layers.TextVectorization(output_mode="multi_hot")
    layer.adapt(["red green", "green blue blue"])
    ds = tf.data.Dataset.from_tensor_slices(tf.constant([["red blue"], ["green yellow"]])).map(layer)
    return [_values(list(ds)), str(ds.element_spec)]


@case
def text_vectorization_in_tf_function(tf):
    layer = tf.keras.layers.TextVectorization(vocabulary=["one", "two", "three"])

    @tf.function
    def encode(x):
        return layer(x)
    return _values(encode(tf.constant(["three two one four", "two"])))


@case
def text_vectorization_config(tf):
    layer = tf.keras.layers.TextVectorization(max_tokens=10, ngrams=2, output_mode="tf_idf")
    layer.adapt(["x y z", "x y"])
    config = layer.get_config()
    restored = tf.keras.layers.TextVectorization.from_config(config)
    return [sorted(config), config["ngrams"], config["vocabulary_size"], config["output_mode"],
            restored.get_config()["max_tokens"]]


@case
def hashing_modes(tf):
    strings = tf.constant([["apple", "kiwi", ""], ["fig", "apple", "pear"]])
    return [_values(tf.keras.layers.Hashing(5)(strings)),
            _values(tf.keras.layers.Hashing(5, mask_value="")(strings)),
            _values(tf.keras.layers.Hashing(5, salt=[3, 4])(strings)),
            _values(tf.keras.layers.Hashing(4, output_mode="multi_hot")(strings)),
            _values(tf.keras.layers.Hashing(4, output_mode="count")(strings)),
            _values(tf.keras.layers.Hashing(6)(np.array([[1.9, -3.2, 1000.0]]))),
            _values(tf.keras.layers.Hashing(6, output_mode="one_hot")(np.array([[4], [9]])))]


@case
def hashing_config(tf):
    config = tf.keras.layers.Hashing(8, salt=3, output_mode="count").get_config()
    return [sorted(config), config["salt"], config["dtype"]["config"]["name"]]


@case
def hashed_crossing(tf):
    layer = tf.keras.layers.HashedCrossing(num_bins=7)
    one_hot = tf.keras.layers.HashedCrossing(num_bins=4, output_mode="one_hot")
    colors, sizes = tf.constant([["red"], ["blue"], ["red"]]), tf.constant([[1], [2], [3]])
    return [_values(layer([colors, sizes])), _values(layer((tf.constant(["a", "b"]), tf.constant(["c", "d"])))),
            _values(one_hot([colors, sizes])), _values(layer([tf.constant("x"), tf.constant(5)])),
            {k: v for k, v in layer.get_config().items() if k != "name"}]


def _composite(tf, x):
    if isinstance(x, tf.RaggedTensor):
        return ["ragged", _values(x.to_list())]
    if isinstance(x, tf.SparseTensor):
        return ["sparse", _values(x.indices), _values(x.values), _values(x.dense_shape)]
    return _values(x)


@case
def ragged_and_sparse_outputs(tf):
    ragged = tf.keras.layers.TextVectorization(ragged=True)
    ragged.adapt(["a b c", "a b", "a"])
    sparse = tf.keras.layers.StringLookup(vocabulary=["a", "b"], output_mode="count", sparse=True)
    return [_composite(tf, ragged(["a b x", "c"])), str(ragged(["c"]).dtype),
            _composite(tf, sparse([["a", "a", "q"], ["b", "b", "b"]])),
            _composite(tf, tf.keras.layers.Hashing(5)(tf.ragged.constant([["a", "b"], ["c"]])))]


@case
def scalar_and_rank1_inputs(tf):
    vocab = ["a", "b"]
    L = tf.keras.layers
    return [_values(L.StringLookup(vocabulary=vocab)(tf.constant("b"))),
            _values(L.StringLookup(vocabulary=vocab, output_mode="one_hot")(tf.constant("b"))),
            _values(L.StringLookup(vocabulary=vocab, output_mode="multi_hot")(tf.constant(["b", "b"]))),
            _values(L.StringLookup(vocabulary=vocab, output_mode="one_hot")(tf.constant([["b", "a"]])))]


@case
def adapt_steps_and_options(tf):
    L = tf.keras.layers
    steps = L.IntegerLookup()
    steps.adapt(tf.data.Dataset.from_tensor_slices(np.array([5, 5, 6, 7])).batch(2), steps=1)
    chars = L.TextVectorization(split="character")
    chars.adapt(["abca", "cd"])
    whole = L.TextVectorization(split=None)
    whole.adapt(["Hello there", "hello"])
    capped = L.TextVectorization(max_tokens=4)
    capped.adapt(["a a b c d e"])
    padded = L.TextVectorization(max_tokens=6, output_mode="multi_hot", pad_to_max_tokens=True)
    padded.adapt(["a b"])
    upper = L.TextVectorization(standardize=lambda x: tf.strings.upper(x), vocabulary=["A", "B"])
    return [_values(steps.get_vocabulary()), _values(chars.get_vocabulary()), _values(chars(["dab"])),
            _values(whole.get_vocabulary()), _values(whole(["hello", "bye"])), capped.vocabulary_size(),
            _values(padded(["a c"])), _values(upper(["a b c"]))]


def _parametrized(fn):
    return pytest.mark.parametrize("name", sorted(CASES))(fn) if pytest else fn


@_parametrized
def test_against_keras(name):
    import tensorflux as tf
    assert _values(CASES[name](tf)) == EXPECTED[name]


def test_lookup_reads_the_vocabulary_at_run_time():
    """A function traced before set_vocabulary() sees the new vocabulary, as a TensorFlow table resource."""
    import tensorflux as tf
    layer = tf.keras.layers.StringLookup(vocabulary=["a"])
    encode = tf.function(lambda x: layer(x))
    assert encode(tf.constant(["a", "b"])).numpy().tolist() == [1, 0]
    layer.set_vocabulary(["b", "a"])
    assert encode(tf.constant(["a", "b"])).numpy().tolist() == [2, 1]


def test_errors():
    import tensorflux as tf
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_oov_indices=0"):
        tf.keras.layers.StringLookup(vocabulary=["a"], num_oov_indices=0)(["b"])
    with pytest.raises(RuntimeError, match="must set the layer's vocabulary"):
        tf.keras.layers.StringLookup(output_mode="multi_hot")(["b"])
    with pytest.raises(ValueError, match="repeated term"):
        tf.keras.layers.StringLookup(vocabulary=["a", "a"])
    with pytest.raises(ValueError, match="Cannot adapt layer"):
        tf.keras.layers.StringLookup(vocabulary=["a"]).adapt(["a"])
    with pytest.raises(ValueError, match="`output_mode` must be `'int'`"):
        tf.keras.layers.StringLookup(invert=True, output_mode="count")


def test_config_of_an_adapted_layer_round_trips_but_its_vocabulary_is_refused_not_guessed():
    """from_config accepts Keras' `vocabulary_size`; the revived layer, which waits for the archive's
    vocabulary asset, refuses to look tokens up instead of mapping every token to OOV."""
    import tensorflux as tf
    layer = tf.keras.layers.TextVectorization(output_mode="multi_hot")
    layer.adapt(["a b", "c"])
    revived = tf.keras.layers.TextVectorization.from_config(layer.get_config())
    with pytest.raises(tf.errors.UnimplementedError, match="was not restored"):
        revived(["a"])
    revived.set_vocabulary(layer.get_vocabulary()[1:])
    assert revived(["a"]).numpy().tolist() == layer(["a"]).numpy().tolist()


def _keras_like_archive(tf, model, path):
    """`model.save(path)` plus the layer assets, as Keras 3 writes them (what the saver does once it calls
    keras_archive.write_layer_assets)."""
    import zipfile
    from tensorflux._src.keras.saving import keras_archive
    model.save(path)
    with zipfile.ZipFile(path, "a") as archive:
        keras_archive.write_layer_assets(model, archive.writestr)
    with zipfile.ZipFile(path) as archive:
        return {n: archive.read(n) for n in archive.namelist() if n.startswith("assets/")}


def test_vocabulary_assets_round_trip_through_a_keras_archive(tmp_path):
    import tensorflux as tf
    pytest.importorskip("h5py")
    from tensorflux._src.keras.saving import keras_archive
    strings = tf.keras.Input(shape=(1,), dtype="string")
    vectorizer = tf.keras.layers.TextVectorization(output_mode="count")
    vectorizer.adapt(["a b c", "a b", "d"])
    lookup = tf.keras.layers.StringLookup()
    lookup.adapt(["x", "y", "y"])
    model = tf.keras.Model(strings, [vectorizer(strings), lookup(strings)])
    path = str(tmp_path / "m.keras")
    assets = _keras_like_archive(tf, model, path)
    # Keras 3.15's entries for this model (its walker also visits the vectorizer's inner lookup layer)
    assert assets == {"assets/layers/string_lookup/vocabulary.txt": b"[UNK]\ny\nx",
                      "assets/layers/text_vectorization/_lookup_layer/vocabulary.txt": b"[UNK]\nb\na\nd\nc",
                      "assets/layers/text_vectorization/vocabulary.txt": b"[UNK]\nb\na\nd\nc"}
    restored = tf.keras.models.load_model(path)
    keras_archive.read_layer_assets(restored, path)
    probe = tf.constant([["a b z"], ["y"]])
    for have, want in zip(restored(probe), model(probe)):
        assert have.numpy().tolist() == want.numpy().tolist()


_KERAS_SAVES_ADAPTED_LAYERS = """
import json, sys
import tensorflow as tf
strings = tf.keras.Input(shape=(1,), dtype="string")
vectorizer = tf.keras.layers.TextVectorization(output_mode="count")
vectorizer.adapt(["a b c", "a b", "d"])
lookup = tf.keras.layers.IntegerLookup(num_oov_indices=2)
lookup.adapt([[5, 5, 7], [9, 5, 7]])
numbers = tf.keras.Input(shape=(2,), dtype="int64")
model = tf.keras.Model([strings, numbers], [vectorizer(strings), lookup(numbers)])
model.save(sys.argv[1])
outputs = model([tf.constant([["a b z"], ["d d"]]), tf.constant([[5, 11], [9, 7]], tf.int64)])
print(json.dumps([o.numpy().tolist() for o in outputs]))
"""


def test_adapted_layers_of_a_keras_file_get_their_vocabulary(tmp_path):
    """A `.keras` file written by Keras 3.15 on TensorFlow (interop: needs TENSORFLOW_PYTHON): its
    vocabulary assets restore the adapted layers."""
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent.parent / "interop"))
    from _tensorflow_side import run_tensorflow
    import tensorflux as tf
    pytest.importorskip("h5py")
    from tensorflux._src.keras.saving import keras_archive
    path = str(tmp_path / "keras_made.keras")
    want = run_tensorflow(_KERAS_SAVES_ADAPTED_LAYERS, path)
    model = tf.keras.models.load_model(path)
    keras_archive.read_layer_assets(model, path)
    have = model([tf.constant([["a b z"], ["d d"]]), tf.constant([[5, 11], [9, 7]], tf.int64)])
    assert [o.numpy().tolist() for o in have] == want


# <<< EXPECTED (generated from TensorFlow 2.21 / Keras 3.15)
EXPECTED = {'adapt_steps_and_options': [[-1, 5], ['', '[UNK]', 'c', 'a', 'd', 'b'], [[4, 3, 5]],
                             ['', '[UNK]', 'hello there', 'hello'], [3, 1], 4, [[1, 0, 1, 0, 0, 0]],
                             [[2, 3, 1]]],
 'hashed_crossing': [[[4], [4], [1]], [1, 1],
                     [[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 0.0]], 0,
                     {'num_bins': 7, 'output_mode': 'int', 'sparse': False, 'dtype': 'int64'}],
 'hashing_config': [['dtype', 'mask_value', 'name', 'num_bins', 'output_mode', 'salt', 'sparse',
                     'trainable'],
                    [3, 3], 'float32'],
 'hashing_modes': [[[1, 3, 3], [4, 1, 3]], [[2, 2, 0], [4, 2, 3]], [[2, 3, 1], [0, 2, 2]],
                   [[0.0, 1.0, 0.0, 1.0], [0.0, 1.0, 1.0, 1.0]],
                   [[0.0, 2.0, 0.0, 1.0], [0.0, 1.0, 1.0, 1.0]], [[3, 3, 5]],
                   [[0.0, 0.0, 0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0, 0.0, 1.0]]],
 'integer_lookup_adapt_and_oov': [[0, -1, -1, 7, 3, 12, 5], [[3, 0, 1], [6, 5, 2]], 7],
 'integer_lookup_invert_and_config': [[12, 1138, 42, -1, -1],
                                      ['dtype', 'idf_weights', 'invert', 'mask_token', 'max_tokens',
                                       'name', 'num_oov_indices', 'oov_method', 'oov_token',
                                       'output_mode', 'pad_to_max_tokens', 'salt', 'sparse', 'trainable',
                                       'vocabulary', 'vocabulary_dtype', 'vocabulary_size'],
                                      [12, 36, 1138, 42]],
 'ragged_and_sparse_outputs': [['ragged', [[2, 3, 1], [4]]], "<dtype: 'int64'>",
                               ['sparse', [[0, 0], [0, 1], [1, 2]], [1, 2, 3], [2, 3]],
                               ['ragged', [[4, 2], [2]]]],
 'scalar_and_rank1_inputs': [2, [[0, 0, 1]], [0, 0, 1], [[[0, 0, 1], [0, 1, 0]]]],
 'string_lookup_adapt_ties_and_mask': [['', '[UNK]', 'b', 'a', 'd', 'c'], 6, [[3, 0, 1], [4, 5, 2]]],
 'string_lookup_config': [['dtype', 'encoding', 'idf_weights', 'invert', 'mask_token', 'max_tokens',
                           'name', 'num_oov_indices', 'oov_method', 'oov_token', 'output_mode',
                           'pad_to_max_tokens', 'salt', 'sparse', 'trainable', 'vocabulary',
                           'vocabulary_size'],
                          ['x', 'y'], 4, '[UNK]'],
 'string_lookup_count_and_multi_hot': [[[0, 2, 1, 0], [1, 0, 0, 2]],
                                       [[0, 1, 1, 0, 0, 0], [1, 0, 0, 1, 0, 0]], "<dtype: 'int64'>"],
 'string_lookup_invert': [['[MASK]', '[UNK]', 'a'], ['b', 'c', '[UNK]']],
 'string_lookup_max_tokens_and_special_tokens_excluded': [['[UNK]', 'x', 'y'], ['x', 'y'], [1, 2, 0]],
 'string_lookup_several_oov_buckets': [[4, 0, 3, 2, 0, 3], [4, 3, 2, 1, 0, 1],
                                       ['[UNK]', '[UNK]', '[UNK]', '[UNK]', 'a']],
 'string_lookup_tf_idf': [[[0.77134, 0.55962, 1.83258, 0.0, 0.0]], ['[UNK]', 'a', 'c', 'b', 'd'],
                          [[1.25, 0.5, 4.0]]],
 'text_vectorization_config': [['dtype', 'encoding', 'idf_weights', 'max_tokens', 'name', 'ngrams',
                                'output_mode', 'output_sequence_length', 'pad_to_max_tokens', 'ragged',
                                'sparse', 'split', 'standardize', 'trainable', 'vocabulary',
                                'vocabulary_size'],
                               2, 6, 'tf_idf', 10],
 'text_vectorization_in_dataset_map': [[[[0, 0, 1, 1]], [[1, 1, 0, 0]]],
                                       'TensorSpec(shape=(None, 4), dtype=tf.int64, name=None)'],
 'text_vectorization_in_tf_function': [[4, 3, 2, 1], [3, 0, 0, 0]],
 'text_vectorization_int_sequence_length': [['', '[UNK]', 'the', 'cat', 'sat', 'dog', 'bird', 'a'],
                                            [[2, 3, 1, 2, 5], [6, 0, 0, 0, 0]]],
 'text_vectorization_ngrams_count': [['[UNK]', 'd', 'c', 'b c d', 'b', 'e', 'c d e', 'a b c', 'a'],
                                     [[0, 1, 1, 1, 1, 1, 1, 1, 1]], 9],
 'text_vectorization_standardize_split_options': [[[2, 3, 4, 5], [5, 2, 3, 0]], [[2, 3, 1], [3, 0, 0]]]}
# >>> EXPECTED


if __name__ == "__main__":   # regenerate EXPECTED under TensorFlow
    import tensorflow
    print(json.dumps({name: _values(fn(tensorflow)) for name, fn in sorted(CASES.items())}, indent=None))
    sys.exit(0)
