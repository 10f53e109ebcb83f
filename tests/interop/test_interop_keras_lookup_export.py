"""SavedModels of Keras lookup layers exported by real TensorFlow 2.21 + Keras 3.15 (`model.export()`: hash
tables as `resource` objects, HashTableV2 / LookupTableImportV2 / LookupTableFindV2; several OOV buckets;
TextVectorization's string ops, and RaggedBincount for its multi_hot/count/tf_idf outputs) load and serve in
tensorflux with TensorFlow's outputs (run with
TENSORFLOW_PYTHON=~/venv-tf/bin/python)."""
import numpy as np
import pytest

import tensorflux as tf
from _tensorflow_side import run_tensorflow

INPUTS = {"sl": [["a", "z", "c"]], "sl_mask": [["a", "", "q"]], "sl_inv": [[1, 2, 7]], "sl_onehot": [["b"], ["q"]],
          "sl_idf": [["a", "b", "a"]], "il": [[3, 9, 7]], "il_count": [[3, 3, 7]], "sl_oov2": [["a", "zz", "q"]],
          "il_oov3": [[3, 9, 11]], "tv": ["the cat ran", "a b c d e f", "Dog!"], "tv_ngrams": ["the cat", "dog sat x"],
          "tv_multi_hot": ["the cat ran", "a b c"], "tv_count": ["the the cat", "dog"],
          "tv_tfidf": ["the cat the", "x"]}

_KERAS_SIDE = '''
import json, sys, numpy as np, tensorflow as tf, keras
folder, inputs = sys.argv[1], json.loads(sys.argv[2])
def seq(shape, dtype, layer):
    return keras.Sequential([keras.Input(shape, dtype=dtype), layer])
models = {
    "sl": seq((3,), "string", keras.layers.StringLookup(vocabulary=["a", "b", "c"])),
    "sl_mask": seq((3,), "string", keras.layers.StringLookup(vocabulary=["a", "b"], mask_token="")),
    "sl_inv": seq((3,), "int64", keras.layers.StringLookup(vocabulary=["a", "b"], invert=True)),
    "sl_onehot": seq((1,), "string", keras.layers.StringLookup(vocabulary=["a", "b"], output_mode="one_hot")),
    "sl_idf": seq((3,), "string", keras.layers.StringLookup(vocabulary=["a", "b"], output_mode="tf_idf",
                                                            idf_weights=[0.5, 1.5])),
    "il": seq((3,), "int64", keras.layers.IntegerLookup(vocabulary=[3, 5, 7])),
    "il_count": seq((3,), "int64", keras.layers.IntegerLookup(vocabulary=[3, 5, 7], output_mode="count")),
    # more than one OOV index: StringToHashBucketFast (its num_buckets attr) / FloorMod picks the bucket
    "sl_oov2": seq((3,), "string", keras.layers.StringLookup(vocabulary=["a", "b", "c"], num_oov_indices=2)),
    "il_oov3": seq((3,), "int64", keras.layers.IntegerLookup(vocabulary=[3, 5, 7], num_oov_indices=3)),
}
# TextVectorization: StringLower, StaticRegexReplace, StringSplitV2 (a SparseTensor's parts), the lookup, then
# RaggedTensorToTensor (first-dim size + value row ids); with ngrams, StringNGrams too
tv = keras.layers.TextVectorization(max_tokens=10, output_sequence_length=4)
tv.adapt(["the cat sat", "the dog ran far", "a cat"])
tv_ngrams = keras.layers.TextVectorization(ngrams=2, output_sequence_length=5)
tv_ngrams.adapt(["The cat sat", "the dog"])
# multi_hot / count / tf_idf count each row's tokens with RaggedBincount
for mode in ("multi_hot", "count", "tf_idf"):
    layer = keras.layers.TextVectorization(max_tokens=8, output_mode=mode)
    layer.adapt(["the cat sat", "the dog ran far", "a cat"])
    models["tv_" + mode.replace("_idf", "idf")] = seq((), "string", layer)
models["tv"] = seq((), "string", tv)
models["tv_ngrams"] = seq((), "string", tv_ngrams)
out = {}
for name, model in models.items():
    model.export(f"{folder}/{name}", verbose=False)
    x = inputs[name]
    value = np.asarray(model(tf.constant(x, tf.int64) if isinstance(x[0][0], int) else tf.constant(x)))
    out[name] = [[v.decode() for v in row] for row in value.tolist()] if value.dtype == object else value.tolist()
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    import json
    folder = tmp_path_factory.mktemp("keras_lookup_exports")
    return folder, run_tensorflow(_KERAS_SIDE, folder, json.dumps(INPUTS))


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_tensorflux_serves_keras_lookup_exports(exported, name):
    folder, expected = exported
    restored = tf.saved_model.load(str(folder / name))
    x = INPUTS[name]
    x = tf.constant(x, tf.int64) if isinstance(x[0][0], int) else tf.constant(x)
    for served in (restored.serve(x), restored.signatures["serving_default"](**{
            restored.signatures["serving_default"].structured_input_signature[1].popitem()[0]: x})["output_0"]):
        value = served.numpy()
        got = [[v.decode() for v in row] for row in value.tolist()] if value.dtype == object else value.tolist()
        if value.dtype.kind == "f":
            np.testing.assert_allclose(got, expected[name], rtol=1e-6)
        else:
            assert got == expected[name]
