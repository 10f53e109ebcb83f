"""Candidate samplers (tf.random / tf.nn), compute_accidental_hits, nce_loss and sampled_softmax_loss
(issue 16): expected counts, accidental hits and losses with their gradients recorded from TensorFlow 2.21
(the losses with fixed `sampled_values`; sampled candidates themselves are random and differ from TF's)."""
import numpy as np
import pytest

import tensorflux as tf

# Recorded with TensorFlow 2.21.
TF = {"all": [[0, 1, 2, 3, 4], [[1.0, 1.0], [1.0, 1.0]], [1.0, 1.0, 1.0, 1.0, 1.0]], "log_uniform_candidate_sampler_False": [[3], [[0.5072763, 0.27917427], [0.86719447, 0.35991824]], [0.14735803, 0.5072763, 0.22810198], [7, 1, 4]], "uniform_candidate_sampler_False": [[3], [[0.30000001, 0.30000001], [0.30000001, 0.30000001]], [0.30000001, 0.30000001, 0.30000001], [1, 5, 1]], "hits": [[0, 1], [0, 1], [-3.4028235e+38, -3.4028235e+38]], "nce_True": [[5.994494, 4.2788272], [[-0.32643482, -0.069962338, 0.16477498, 0.27700162], [0.37911987, 0.12476248, -0.37744296, -0.24820325], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [-0.83075196, -0.81135499, 3.1278152, -0.36498526], [-0.76215929, 0.33007354, -1.725511, 1.4803491]], [[1.3904468, 0.40670446, 2.354598, -0.76495129], [-0.26363212, 1.4540005, -0.28584081, -0.32385689]]], "nce_False": [[5.994494, 4.4524779], [[-0.32643482, -0.069962338, 0.16477498, 0.27700162], [0.37911987, 0.12476248, -0.37744296, -0.24820325], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [-0.8161633, -0.70453393, 2.6769788, -0.20217907], [-0.76215929, 0.33007354, -1.725511, 1.4803491]], [[1.3904468, 0.40670446, 2.354598, -0.76495129], [-0.18680534, 1.4159727, -0.13316482, -0.35570729]]], "ssl_True": [[3.0450635, 3.9732637], [[-0.018294388, -0.0020731553, 0.0013321936, 0.018645657], [0.84427041, 0.27783632, -0.84053606, -0.55272925], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [-0.26897544, -0.71646392, 2.953347, -0.88478786], [-0.55700052, 0.44070077, -2.1141429, 1.4188714]], [0.027442012, -0.9524067, 0.0, 0.0, -0.77905786, 1.7040224]], "ssl_False": [[3.0450635, 3.9919009], [[-0.01830481, -0.0021494692, 0.0016542766, 0.018529346], [0.84427041, 0.27783632, -0.84053606, -0.55272925], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [-0.26731741, -0.70432347, 2.9021084, -0.86628461], [-0.55864811, 0.42863661, -2.0632265, 1.4004844]], [0.027328128, -0.9524067, 0.0, 0.0, -0.76094061, 1.6860192]], "bnggn": [[-1.6182306, -2.6419673, 0.97280645], [1.7004898, -0.91161108, -0.58907187]], "bnggn2": [[-0.55911529, -1.3209836, 0.98640323], [1.1002449, -0.45580554, 0.20546407]], "bnggn_x": [[-0.95964473, -1.6686199, 0.27644575], [0.70054489, -0.44476745, -1.0764059]], "fixed_d": [[[0.69027954, 0.97620267], [0.48810133, 0.84541631]], [0.97620267, 0.84541631, 0.84541631], [3, 2, 2]]}
TRUE_CLASSES = [[1, 3], [0, 2]]


def test_all_candidate_sampler_matches_tensorflow():
    s = tf.random.all_candidate_sampler(tf.constant(TRUE_CLASSES, tf.int64), 2, 5, True)
    assert [s.sampled_candidates.numpy().tolist(), s.true_expected_count.numpy().tolist(),
            s.sampled_expected_count.numpy().tolist()] == TF["all"]
    assert tf.nn.all_candidate_sampler is tf.random.all_candidate_sampler


@pytest.mark.parametrize("name", ["log_uniform_candidate_sampler", "uniform_candidate_sampler"])
def test_expected_counts_follow_tensorflow(name):
    sampler = getattr(tf.random, name)
    shape, true_counts = TF[f"{name}_False"][:2]
    s = sampler(tf.constant(TRUE_CLASSES, tf.int64), 2, 3, False, 10, seed=1)
    assert s.sampled_candidates.shape.as_list() == shape and s.sampled_candidates.dtype == tf.int64
    np.testing.assert_allclose(s.true_expected_count.numpy(), true_counts, rtol=1e-6)  # p * num_sampled
    assert ((s.sampled_candidates.numpy() >= 0) & (s.sampled_candidates.numpy() < 10)).all()
    unique = sampler(tf.constant(TRUE_CLASSES, tf.int64), 2, 6, True, 10, seed=2)
    values = unique.sampled_candidates.numpy()
    assert len(set(values.tolist())) == 6
    # Without replacement: 1 - (1 - p)^tries for one integer number of tries >= num_sampled (TF's formula).
    p = np.asarray(true_counts)[0, 0] / 3
    count = unique.true_expected_count.numpy()[0, 0]
    tries = np.log1p(-count) / np.log1p(-p) if count < 1 else None
    assert count == pytest.approx(6 * p, rel=1e-5) or abs(tries - round(tries)) < 1e-3


def test_fixed_unigram_sampler_respects_its_distribution():
    s = tf.random.fixed_unigram_candidate_sampler(tf.constant(TRUE_CLASSES, tf.int64), 2, 3, False, 4,
                                                  unigrams=[1., 2., 3., 4.], distortion=0.5, seed=1)
    np.testing.assert_allclose(s.true_expected_count.numpy(), TF["fixed_d"][0], rtol=1e-6)


def test_compute_accidental_hits_matches_tensorflow():
    rows, ids, weights = tf.nn.compute_accidental_hits(tf.constant(TRUE_CLASSES, tf.int64),
                                                       tf.constant([3, 0, 4], tf.int64), 2)
    assert [rows.numpy().tolist(), ids.numpy().tolist()] == TF["hits"][:2]
    np.testing.assert_allclose(weights.numpy(), TF["hits"][2], rtol=1e-6)  # -FLT_MAX
    assert (rows.dtype, ids.dtype, weights.dtype) == (tf.int32, tf.int64, tf.float32)


@pytest.mark.parametrize("remove_hits", [True, False])
def test_sampled_losses_match_tensorflow(remove_hits):
    rng = np.random.default_rng(3)
    w = tf.constant(rng.standard_normal((6, 4)).astype(np.float32))
    b = tf.constant(rng.standard_normal(6).astype(np.float32))
    x = tf.constant(rng.standard_normal((2, 4)).astype(np.float32))
    labels = np.array([[1], [4]], np.int64)
    sampled = (tf.constant([0, 4, 5], tf.int64), tf.constant([[0.3], [0.2]]), tf.constant([0.5, 0.2, 0.1]))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([w, b, x])
        nce = tf.nn.nce_loss(w, b, labels, x, 3, 6, sampled_values=sampled, remove_accidental_hits=remove_hits)
        ssl = tf.nn.sampled_softmax_loss(w, b, labels, x, 3, 6, sampled_values=sampled,
                                         remove_accidental_hits=remove_hits)
    for got, expected in zip([nce, tape.gradient(nce, w), tape.gradient(nce, x)], TF[f"nce_{remove_hits}"]):
        np.testing.assert_allclose(tf.convert_to_tensor(got).numpy(), expected, atol=1e-5)
    for got, expected in zip([ssl, tape.gradient(ssl, w), tape.gradient(ssl, b)], TF[f"ssl_{remove_hits}"]):
        np.testing.assert_allclose(tf.convert_to_tensor(got).numpy(), expected, atol=1e-5)


def test_sampled_softmax_loss_samples_when_not_given():
    rng = np.random.default_rng(4)
    loss = tf.nn.sampled_softmax_loss(rng.standard_normal((50, 4)).astype(np.float32), np.zeros(50, np.float32),
                                      [[1], [7]], rng.standard_normal((2, 4)).astype(np.float32), 5, 50, seed=3)
    assert loss.shape == [2] and np.isfinite(loss.numpy()).all()


def test_batch_norm_with_global_normalization_matches_tensorflow():
    x = tf.constant(TF["bnggn_x"])
    args = (tf.constant([0.1, 0.2, 0.3]), tf.constant([1., 2., 3.]), tf.constant([0.5, 0., 1.]), tf.constant([2., 2., 2.]))
    np.testing.assert_allclose(tf.nn.batch_norm_with_global_normalization(x, *args, 0.001, True).numpy(), TF["bnggn"],
                               rtol=1e-6)
    np.testing.assert_allclose(tf.nn.batch_norm_with_global_normalization(x, *args, 0.001, False).numpy(),
                               TF["bnggn2"], rtol=1e-6)


def test_learned_unigram_sampler_learns_from_true_classes():
    # TensorFlow 2.21, two calls of one seeded sampler: every class starts at weight 1, then the true
    # classes of each batch are counted after sampling.
    true_classes = tf.constant(TRUE_CLASSES, tf.int64)
    first = tf.random.learned_unigram_candidate_sampler(true_classes, 2, 3, False, 5, seed=123)
    np.testing.assert_allclose(first.true_expected_count.numpy(), [[0.6, 0.6], [0.6, 0.6]], rtol=1e-6)
    second = tf.nn.learned_unigram_candidate_sampler(true_classes, 2, 3, False, 5, seed=123)
    np.testing.assert_allclose(second.true_expected_count.numpy(), np.full((2, 2), 2 / 3), rtol=1e-6)
    expected = {0: 2 / 3, 1: 2 / 3, 2: 2 / 3, 3: 2 / 3, 4: 1 / 3}
    np.testing.assert_allclose(second.sampled_expected_count.numpy(),
                               [expected[c] for c in second.sampled_candidates.numpy().tolist()], rtol=1e-6)
