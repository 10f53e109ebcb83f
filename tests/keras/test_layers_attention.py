"""keras attention layers (MultiHeadAttention, Attention, AdditiveAttention): weights and their order, masks,
output shapes, against NumPy einsum references and against numbers computed with real Keras 3.15
(TensorFlow 2.21) on the same inputs and weights; gradients against finite differences; `model.fit`."""
import numpy as np
import pytest

import tensorflux as tf
from helpers import numeric_grad

keras = tf.keras
layers = keras.layers


def ramp(shape, scale=1.0, phase=0.0):
    """Deterministic values in [-scale/2, scale/2): the same function produced the Keras values below."""
    n = int(np.prod(shape))
    return (((np.arange(n) * 0.37 + phase) % 1.0 - 0.5) * scale).reshape(shape).astype(np.float32)


def with_ramp_weights(layer, *args, scale=1.5):
    """`layer` built by calling it on `args`, its weights then set to ramps (phase 0.1 per weight)."""
    layer(*args)
    layer.set_weights([ramp(w.shape, scale, 0.1 * i) for i, w in enumerate(layer.get_weights())])
    return layer


def close(got, expected, atol=2e-5):
    np.testing.assert_allclose(np.asarray(got), np.asarray(expected, np.float64), rtol=1e-5, atol=atol)


Q = ramp((2, 3, 4), 2.0)
V = ramp((2, 4, 5), 2.0, 0.3)
K = ramp((2, 4, 3), 2.0, 0.6)
# Query 1 of the first example may attend to nothing.
MASK = np.array([[[1, 1, 0, 1], [0, 0, 0, 0], [1, 0, 1, 1]], [[1, 1, 1, 1], [0, 1, 0, 0], [1, 1, 0, 0]]], bool)
QA = ramp((2, 3, 4), 2.0, 0.2)
VA = ramp((2, 4, 4), 2.0, 0.5)
KA = ramp((2, 4, 4), 2.0, 0.8)
QUERY_MASK = np.array([[1, 0, 1], [1, 1, 1]], bool)
VALUE_MASK = np.array([[1, 1, 0, 1], [0, 1, 1, 1]], bool)
FIT_X = ramp((4, 3, 4), 2.0, 0.15)
FIT_Y = np.array([[0.5], [-1.0], [1.0], [0.0]], np.float32)

# Real Keras outputs (TF 2.21's Keras 3.15, rounded to 6 decimals) for the inputs above and ramp weights.
MHA_MASKED = [[[-0.166581, -0.65866, 0.135374, 0.133071], [0.3, -0.645, -0.09, 0.465], [-0.11922, -0.496964, 0.011726, 0.214424]], [[-0.120596, -0.512018, 0.087859, 0.208981], [-0.747825, -0.678007, 0.57681, -0.281123], [-0.211171, -0.357266, -0.006105, 0.191341]]]
MHA_MASKED_SCORES = [[[[0.503337, 0.253672, 0.0, 0.242991], [0.0, 0.0, 0.0, 0.0], [0.349724, 0.0, 0.297029, 0.353246]], [[0.217108, 0.334858, 0.0, 0.448034], [0.0, 0.0, 0.0, 0.0], [0.071621, 0.0, 0.392881, 0.535498]]], [[[0.314031, 0.334505, 0.170184, 0.18128], [0.0, 1.0, 0.0, 0.0], [0.48372, 0.51628, 0.0, 0.0]], [[0.241721, 0.239272, 0.260824, 0.258182], [0.0, 1.0, 0.0, 0.0], [0.502313, 0.497687, 0.0, 0.0]]]]
MHA_MASKED_FUSED = [[[-0.166581, -0.65866, 0.135374, 0.133071], [0.082988, -0.411214, -0.057915, 0.382009], [-0.11922, -0.496964, 0.011726, 0.214424]], [[-0.120596, -0.512018, 0.087859, 0.208981], [-0.747825, -0.678007, 0.57681, -0.281123], [-0.211171, -0.357266, -0.006105, 0.191341]]]
MHA_CAUSAL = [[[0.2568, -0.93462, 0.13896, 0.34854], [0.286951, -0.348105, -0.103609, 0.544096], [-0.273334, -0.664339, 0.31438, 0.056367]], [[0.3468, -0.04542, -0.60264, 0.67614], [-0.261201, -0.415795, 0.060853, 0.138784], [-0.009758, -0.472511, -0.014198, 0.298613]]]
ATT_DOT = [[[0.0, 0.74, -0.52, 0.22], [0.0, 0.0, 0.0, 0.0], [0.558246, 0.135233, 0.038246, -0.384767]], [[0.28, 0.02, -0.24, 0.0], [0.8, -0.46, 0.28, -0.98], [0.290315, 0.010478, -0.229685, -0.509522]]]
ATT_DOT_SCORES = [[[1.0, 0.0, 0.0, 0.0], [0.792516, 0.207484, 0.0, 0.0], [0.418494, 0.581506, 0.0, 0.0]], [[0.25, 0.25, 0.25, 0.25], [0.0, 1.0, 0.0, 0.0], [0.0, 0.509919, 0.490081, 0.0]]]
ATT_CONCAT = [[[0.3662, 0.293528, -0.1538, -0.226472], [0.403408, 0.243941, -0.116592, -0.276059], [0.376987, 0.279573, -0.143013, -0.240427]], [[0.352022, -0.086089, -0.167978, -0.091194], [0.416451, -0.151797, -0.103549, -0.075848], [0.428782, -0.162222, -0.091219, -0.098712]]]
ADDITIVE = [[[0.135795, 0.4994, -0.384205, -0.0206], [0.444043, 0.139736, -0.075957, -0.380264], [0.149297, 0.483789, -0.370703, -0.036211]], [[0.49973, -0.212663, -0.02027, -0.048872], [0.190457, 0.119199, -0.329543, 0.0132], [0.406945, -0.112732, -0.113055, -0.044718]]]
MHA_FIT_LOSS = [0.771475, 0.612007, 0.561641]
MHA_FIT_PRED = [[0.333483], [0.167961], [0.319475], [0.244321]]


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def mha_reference(query, value, key, weights, key_dim, mask=None, zero_masked=False):
    """Multi-head attention in NumPy: (output, attention weights (batch, heads, T, S))."""
    q_kernel, q_bias, k_kernel, k_bias, v_kernel, v_bias, out_kernel, out_bias = weights
    q = np.einsum("btd,dnh->btnh", query, q_kernel) + q_bias
    k = np.einsum("bsd,dnh->bsnh", key, k_kernel) + k_bias
    v = np.einsum("bsd,dnh->bsnh", value, v_kernel) + v_bias
    scores = np.einsum("btnh,bsnh->bnts", q, k) / np.sqrt(key_dim)
    if mask is not None:
        scores = np.where(mask[:, None], scores, -1e9)
    probs = softmax(scores)
    if mask is not None and zero_masked:
        probs = np.where(mask[:, None], probs, 0.0)
    heads = np.einsum("bnts,bsnh->btnh", probs, v)
    out_letters = "opq"[:out_kernel.ndim - 2]
    return np.einsum(f"btnh,nh{out_letters}->bt{out_letters}", heads, out_kernel) + out_bias, probs


def masked_mha():
    return with_ramp_weights(layers.MultiHeadAttention(num_heads=2, key_dim=2, value_dim=3), Q, V, K)


# -- MultiHeadAttention ------------------------------------------------------------------------------
def test_mha_weights_have_keras_shapes_and_order():
    mha = layers.MultiHeadAttention(num_heads=2, key_dim=3, value_dim=4, output_shape=5)
    mha(np.ones((1, 2, 6)), np.ones((1, 3, 7)), np.ones((1, 3, 8)))
    # Keras: query kernel/bias, key kernel/bias, value kernel/bias, attention_output kernel/bias.
    assert [tuple(w.shape.as_list()) for w in mha.weights] == [(6, 2, 3), (2, 3), (8, 2, 3), (2, 3), (7, 2, 4),
                                                               (2, 4), (2, 4, 5), (5,)]
    names = [w.path for w in mha.weights]   # Keras 3: path "multi_head_attention/query/kernel"
    for name, part in zip(names, ["query/kernel", "query/bias", "key/kernel", "key/bias", "value/kernel",
                                  "value/bias", "attention_output/kernel", "attention_output/bias"]):
        assert part in name
    no_bias = layers.MultiHeadAttention(num_heads=1, key_dim=2, use_bias=False)
    no_bias.build((None, 3, 4), (None, 5, 6))
    assert [tuple(w.shape.as_list()) for w in no_bias.weights] == [(4, 1, 2), (6, 1, 2), (6, 1, 2), (1, 2, 4)]
    assert no_bias.count_params() == 8 + 12 + 12 + 8


def test_mha_masked_scores_match_keras_and_reference():
    mha = masked_mha()
    out, scores = mha(Q, V, K, attention_mask=MASK, return_attention_scores=True)
    assert out.shape == (2, 3, 4) and scores.shape == (2, 2, 3, 4)
    close(out, MHA_MASKED)
    close(scores, MHA_MASKED_SCORES)
    ref_out, ref_scores = mha_reference(Q, V, K, mha.get_weights(), 2, MASK, zero_masked=True)
    close(out, ref_out, atol=1e-5)
    close(scores, ref_scores, atol=1e-6)
    # The query with nothing to attend to gets zero weights, so only the output bias.
    close(scores[0, :, 1], np.zeros((2, 4)))
    close(out[0, 1], mha.get_weights()[-1])


def test_mha_without_scores_averages_fully_masked_queries_like_keras():
    mha = masked_mha()
    out = mha(Q, V, K, attention_mask=MASK)
    close(out, MHA_MASKED_FUSED)
    close(out, mha_reference(Q, V, K, mha.get_weights(), 2, MASK)[0], atol=1e-5)
    close(out[1], MHA_MASKED[1])        # rows with something to attend to are unaffected
    assert np.abs(np.asarray(out[0, 1]) - np.asarray(MHA_MASKED)[0, 1]).max() > 0.05


def test_mha_causal_mask_matches_keras_and_explicit_mask():
    mha = masked_mha()
    out = mha(Q, V, K, use_causal_mask=True)
    close(out, MHA_CAUSAL)
    lower = np.tril(np.ones((3, 4), bool))[None].repeat(2, 0)
    close(out, mha(Q, V, K, attention_mask=lower), atol=1e-6)
    both = mha(Q, V, K, attention_mask=MASK, use_causal_mask=True, return_attention_scores=True)[0]
    close(both, mha_reference(Q, V, K, mha.get_weights(), 2, MASK & lower, zero_masked=True)[0], atol=1e-5)


def test_mha_value_and_key_masks_hide_value_steps():
    mha = masked_mha()
    steps = np.array([[1, 1, 0, 1], [0, 1, 1, 0]], bool)
    expected = mha(Q, V, K, attention_mask=np.broadcast_to(steps[:, None], (2, 3, 4)))
    close(mha(Q, V, K, value_mask=steps), expected, atol=1e-6)
    close(mha(Q, V, K, key_mask=steps), expected, atol=1e-6)
    # Integer masks count as booleans (nonzero attends).
    close(mha(Q, V, K, attention_mask=MASK.astype(np.int32)), mha(Q, V, K, attention_mask=MASK), atol=1e-6)


def test_mha_self_attention_and_tuple_output_shape():
    mha = with_ramp_weights(layers.MultiHeadAttention(num_heads=3, key_dim=2, output_shape=(2, 3)), V, V)
    assert mha.weights[-2].shape == (3, 2, 2, 3) and mha.weights[-1].shape == (2, 3)
    out = mha(V, V)
    assert out.shape == (2, 4, 2, 3)
    close(out, mha_reference(V, V, V, mha.get_weights(), 2)[0], atol=1e-5)
    assert mha.compute_output_shape((None, 4, 5), (None, 6, 5)) == (None, 4, 2, 3)
    assert layers.MultiHeadAttention(2, 2, output_shape=7).compute_output_shape((None, 4, 5), (None, 6, 3)) == \
        (None, 4, 7)


def test_mha_in_functional_model_with_unknown_batch_and_lengths():
    query, value = keras.Input((None, 4)), keras.Input((None, 5))
    mha = layers.MultiHeadAttention(num_heads=2, key_dim=2, value_dim=3)
    out, scores = mha(query, value, return_attention_scores=True)
    assert out.shape == (None, None, 4) and scores.shape == (None, 2, None, None)
    model = keras.Model([query, value], [out, scores])
    mha.set_weights([ramp(w.shape, 1.5, 0.1 * i) for i, w in enumerate(mha.get_weights())])
    got_out, got_scores = model.predict([Q, V], verbose=0)
    ref_out, ref_scores = mha_reference(Q, V, V, mha.get_weights(), 2)
    close(got_out, ref_out, atol=1e-5)
    close(got_scores, ref_scores, atol=1e-6)


def test_mha_dropout_only_while_training_and_scores_are_before_dropout():
    plain = masked_mha()
    mha = layers.MultiHeadAttention(num_heads=2, key_dim=2, value_dim=3, dropout=0.5, seed=3)
    mha(Q, V, K)
    mha.set_weights(plain.get_weights())
    close(mha(Q, V, K, attention_mask=MASK), MHA_MASKED, atol=1e-6)   # dropout > 0 zeroes masked rows
    tf.random.set_seed(0)
    out, scores = mha(Q, V, K, attention_mask=MASK, return_attention_scores=True, training=True)
    close(scores, MHA_MASKED_SCORES)
    assert np.abs(np.asarray(out) - np.asarray(MHA_MASKED)).max() > 1e-3


def test_mha_regularizers_add_one_loss_per_weight():
    mha = layers.MultiHeadAttention(num_heads=1, key_dim=2, kernel_regularizer=keras.regularizers.L2(0.1),
                                    bias_regularizer="l1")
    mha(Q, V)
    assert len(mha.losses) == 8
    kernels = [w.numpy() for w in mha.weights[::2]]
    close(sum(float(loss) for loss in mha.losses[::2]), 0.1 * sum((k ** 2).sum() for k in kernels), atol=1e-5)


@pytest.mark.parametrize("kwargs, argument, error", [
    ({"num_heads": 0, "key_dim": 2}, "num_heads", ValueError),
    ({"num_heads": 2, "key_dim": 1.5}, "key_dim", ValueError),
    ({"num_heads": 2, "key_dim": 2, "value_dim": -1}, "value_dim", ValueError),
    ({"num_heads": 2, "key_dim": 2, "attention_axes": (1,)}, "attention_axes", NotImplementedError),
    ({"num_heads": 2, "key_dim": 2, "use_gate": True}, "use_gate", NotImplementedError),
    ({"num_heads": 2, "key_dim": 2, "sliding_window": 2}, "sliding_window", NotImplementedError),
    ({"num_heads": 2, "key_dim": 2, "dropout": 1.5}, "dropout", ValueError),
])
def test_mha_rejects_bad_or_unsupported_arguments(kwargs, argument, error):
    # bad values are Keras' ValueErrors; Keras features tensorflux lacks are NotImplementedError
    with pytest.raises(error, match=argument):
        layers.MultiHeadAttention(**kwargs)


def test_mha_rejects_mismatched_key_and_value_and_other_ranks():
    with pytest.raises(ValueError, match="`value` and `key`"):
        layers.MultiHeadAttention(2, 2)(Q, V, np.ones((2, 5, 3), np.float32))
    with pytest.raises(ValueError, match="rank-3"):
        layers.MultiHeadAttention(2, 2)(np.ones((1, 2, 3, 4)), np.ones((1, 2, 3, 4)))


def test_mha_gradients_match_finite_differences():
    mha = masked_mha()
    upstream = ramp((2, 3, 4), 1.0, 0.45)

    def loss(query):
        return float(tf.reduce_sum(mha(tf.constant(query, tf.float32), V, K, attention_mask=MASK) * upstream))

    query = tf.constant(Q)
    with tf.GradientTape() as tape:
        tape.watch(query)
        total = tf.reduce_sum(mha(query, V, K, attention_mask=MASK) * upstream)
    grads = tape.gradient(total, [query] + mha.trainable_weights)
    np.testing.assert_allclose(grads[0].numpy(), numeric_grad(loss, Q.astype(np.float64), eps=1e-3),
                               rtol=1e-2, atol=2e-3)
    for index in (0, 2, 6):   # query, key and output kernels
        weights = mha.get_weights()

        def loss_of_weight(value, index=index):
            mha.set_weights(weights[:index] + [value.astype(np.float32)] + weights[index + 1:])
            return loss(Q)

        numeric = numeric_grad(loss_of_weight, weights[index].astype(np.float64), eps=1e-3)
        mha.set_weights(weights)
        np.testing.assert_allclose(grads[1 + index].numpy(), numeric, rtol=1e-2, atol=2e-3)


def test_mha_trains_in_fit_like_keras():
    inputs = keras.Input((3, 4))
    hidden = layers.MultiHeadAttention(num_heads=2, key_dim=2, name="mha")(inputs, inputs)
    outputs = layers.Dense(1)(layers.GlobalAveragePooling1D()(hidden))
    model = keras.Model(inputs, outputs)
    model.set_weights([ramp(w.shape, 1.0, 0.1 * i) for i, w in enumerate(model.get_weights())])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    losses = model.fit(FIT_X, FIT_Y, batch_size=2, epochs=3, shuffle=False, verbose=0).history["loss"]
    assert losses[-1] < losses[0]
    close(losses, MHA_FIT_LOSS, atol=1e-5)
    close(model.predict(FIT_X, verbose=0), MHA_FIT_PRED, atol=1e-5)


# -- Attention and AdditiveAttention -----------------------------------------------------------------
def attention_reference(query, value, key, scores, query_mask=None, scores_mask=None):
    if scores_mask is not None:
        scores = np.where(scores_mask, scores, scores - 1e9)
    probs = softmax(scores)
    out = probs @ value
    if query_mask is not None:
        out = np.where(query_mask[..., None], out, 0.0)
    return out, probs


def test_attention_dot_with_masks_and_causal_matches_keras_and_reference():
    attention = layers.Attention(use_scale=True)
    attention([QA, VA])
    assert [tuple(w.shape.as_list()) for w in attention.weights] == [()]
    attention.set_weights([np.float32(0.8)])
    out, scores = attention([QA, VA, KA], mask=[QUERY_MASK, VALUE_MASK], use_causal_mask=True,
                            return_attention_scores=True)
    close(out, ATT_DOT)
    close(scores, ATT_DOT_SCORES)
    causal = np.tril(np.ones((3, 4), bool))
    ref_out, ref_probs = attention_reference(QA, VA, KA, 0.8 * QA @ KA.transpose(0, 2, 1), QUERY_MASK,
                                             VALUE_MASK[:, None] & causal)
    close(out, ref_out, atol=1e-5)
    close(scores, ref_probs, atol=1e-6)


def test_attention_concat_scores_match_keras_and_reference():
    attention = layers.Attention(use_scale=True, score_mode="concat")
    attention([QA, VA])
    assert [w.name.split("/")[-1].split(":")[0] for w in attention.weights] == ["scale", "concat_score_weight"]
    attention.set_weights([np.float32(0.7), np.float32(1.3)])
    out = attention([QA, VA, KA], mask=[None, VALUE_MASK])
    close(out, ATT_CONCAT)
    scores = 1.3 * np.tanh(0.7 * (QA[:, :, None] + KA[:, None])).sum(-1)
    close(out, attention_reference(QA, VA, KA, scores, scores_mask=VALUE_MASK[:, None])[0], atol=1e-5)


def test_additive_attention_matches_keras_and_reference():
    additive = layers.AdditiveAttention()
    additive([QA, VA])
    assert [tuple(w.shape.as_list()) for w in additive.weights] == [(4,)]
    scale = np.array([0.5, -1.0, 2.0, 0.1], np.float32)
    additive.set_weights([scale])
    out = additive([QA, VA, KA])
    close(out, ADDITIVE)
    scores = (scale * np.tanh(QA[:, :, None] + KA[:, None])).sum(-1)
    close(out, attention_reference(QA, VA, KA, scores)[0], atol=1e-5)
    unscaled = layers.AdditiveAttention(use_scale=False)
    assert unscaled([QA, VA]).shape == (2, 3, 4) and unscaled.weights == []


def test_attention_without_key_uses_value_and_has_no_weights_by_default():
    attention = layers.Attention()
    out = attention([QA, VA])
    assert attention.weights == []
    close(out, attention_reference(QA, VA, VA, QA @ VA.transpose(0, 2, 1))[0], atol=1e-5)


def test_attention_dropout_applies_only_in_training():
    attention = layers.Attention(dropout=0.5, seed=1)
    close(attention([QA, VA]), layers.Attention()([QA, VA]), atol=1e-6)
    tf.random.set_seed(0)
    trained, scores = attention([QA, VA], training=True, return_attention_scores=True)
    close(scores, layers.Attention()([QA, VA], return_attention_scores=True)[1], atol=1e-6)
    assert np.abs(np.asarray(trained) - np.asarray(layers.Attention()([QA, VA]))).max() > 1e-3


def test_attention_shapes_in_functional_model():
    query, value = keras.Input((3, 4)), keras.Input((None, 6))
    key = keras.Input((None, 4))
    out, scores = layers.Attention()([query, value, key], return_attention_scores=True)
    assert out.shape == (None, 3, 6) and scores.shape == (None, 3, None)
    additive = layers.AdditiveAttention()
    assert additive([query, key]).shape == (None, 3, 4)
    assert additive.compute_output_shape([(None, 3, 4), (None, 5, 6)]) == (None, 3, 6)
    model = keras.Model([query, value, key], out)
    values = ramp((2, 4, 6), 2.0)
    close(model.predict([QA, values, KA], verbose=0),
          attention_reference(QA, values, KA, QA @ KA.transpose(0, 2, 1))[0], atol=1e-5)


def test_attention_trains_in_fit():
    query, value = keras.Input((3, 4)), keras.Input((4, 4))
    outputs = layers.Dense(1)(layers.Flatten()(layers.AdditiveAttention()([query, value])))
    model = keras.Model([query, value], outputs)
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    losses = model.fit([QA, VA], np.array([[1.0], [-1.0]], np.float32), epochs=5, verbose=0).history["loss"]
    assert losses[-1] < losses[0]


@pytest.mark.parametrize("make, message", [
    (lambda: layers.Attention(score_mode="general"), "score_mode"),
    (lambda: layers.Attention()(QA), "list of inputs"),
    (lambda: layers.Attention()([QA, VA, KA, KA]), "length 2 or 3"),
    (lambda: layers.Attention()([QA, VA], mask=QUERY_MASK), "mask must be a list"),
    (lambda: layers.AdditiveAttention(dropout=-0.1), "dropout"),
])
def test_attention_rejects_bad_arguments(make, message):
    with pytest.raises(ValueError, match=message):
        make()
