"""tf.random.categorical / stateless_categorical (the Multinomial kernels) and tf.random.shuffle draw
TensorFlow's numbers.

Expected samples were printed by TensorFlow 2.21 on this 2-CPU machine for logits made by
`np.random.default_rng(1)` in the order below (the same generator and order here). Batches large enough for
TensorFlow's thread pool to split them depend on the CPU count, in TensorFlow too: the test pins 2 CPUs."""
import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.ops.random import multinomial

SHAPES = [(1, 5, 10), (2, 3, 7), (3, 4, 1), (1, 1000, 3), (8, 10, 20), (64, 100, 5), (16, 50, 100),
          (128, 1000, 2), (40, 7, 33), (1, 20000, 2)]
# (batch, classes, num_samples): TensorFlow's samples, row-major, seed [7, 11]
EXPECTED = {
    (1, 5, 10): (
        "4 1 1 4 4 4 4 4 1 2"),
    (2, 3, 7): (
        "2 0 0 2 2 2 2 1 0 1 0 1 0 2"),
    (3, 4, 1): (
        "2 0 3"),
    (1, 1000, 3): (
        "837 434 478"),
    (8, 10, 20): (
        "9 9 9 9 9 9 9 9 5 9 9 9 4 9 9 9 9 3 9 9 3 3 3 7 3 3 2 3 3 1 2 9 2 3 3 3 3 3 3 3 5 8 3 1 3 5 2 5 5 3 "
        "1 5 1 3 3 5 2 5 3 5 4 4 4 4 8 4 4 5 8 8 4 6 5 4 1 4 0 6 1 6 1 2 2 0 1 2 2 7 2 1 1 7 9 4 2 7 2 2 7 1 "
        "5 5 7 5 5 5 2 5 1 5 5 5 5 6 5 5 5 5 6 5 0 3 3 3 3 3 3 9 3 3 1 6 1 1 3 3 3 1 1 6 9 5 9 5 9 5 8 5 8 0 "
        "0 9 0 2 5 5 8 9 5 5"),
    (64, 100, 5): (
        "77 51 51 91 76 71 89 71 26 56 55 84 12 99 99 49 50 5 53 99 61 51 61 92 51 46 26 46 68 15 2 99 16 41 "
        "78 75 50 75 26 20 44 44 53 55 44 48 14 14 75 97 9 5 16 55 6 63 84 23 14 90 8 26 30 79 16 89 48 71 33 "
        "36 26 34 73 26 33 44 63 87 44 53 68 11 36 46 68 91 35 68 53 47 27 43 5 72 18 61 20 31 58 3 15 35 31 "
        "89 15 20 16 81 97 81 57 60 60 30 60 25 93 93 93 93 52 26 88 2 52 46 83 72 52 46 2 36 2 28 52 36 60 "
        "96 81 38 89 51 99 51 1 67 44 67 44 67 47 98 79 80 25 74 8 17 51 51 74 84 30 89 18 33 88 88 68 33 15 "
        "71 76 15 63 49 97 33 93 33 57 22 22 61 1 35 83 87 89 91 9 9 9 9 9 53 87 42 8 82 8 91 56 74 95 79 16 "
        "79 47 32 91 97 91 65 87 30 44 90 70 48 57 47 23 57 57 13 97 45 21 72 51 80 34 80 34 34 73 34 58 58 "
        "37 83 36 41 91 4 56 56 66 3 89 16 10 16 80 97 12 51 80 18 20 88 12 88 5 8 70 94 59 70 44 21 98 44 46 "
        "7 95 63 57 57 84 49 65 7 84 72 51 59 75 63 56 56 3 79 3 13 50 13 13 13 99 44 99 99 99 42 40 93 39 93 "
        "56 28 14 53 14 54 73 58 13 4"),
    (128, 1000, 2): (
        "674 380 546 974 428 428 910 687 44 475 182 631 30 980 784 679 884 76 754 944 666 518 580 884 449 542 "
        "242 503 737 113 188 987 765 970 363 40 390 547 355 625 807 344 175 963 28 345 404 881 161 888 511 "
        "728 283 313 270 394 769 209 445 477 819 933 269 490 97 184 375 7 166 510 342 934 130 13 85 925 971 "
        "713 513 781 598 327 920 61 704 672 972 816 703 300 75 528 20 390 563 419 10 451 288 596 241 580 369 "
        "993 604 844 258 895 95 233 793 829 623 135 162 847 929 473 866 654 862 267 611 339 613 71 118 685 22 "
        "715 500 572 893 559 78 845 135 113 986 997 960 400 973 396 452 883 736 423 635 432 176 776 653 301 "
        "996 843 224 887 513 831 852 63 872 290 47 205 810 983 108 546 673 318 532 947 327 742 289 31 681 983 "
        "414 746 605 211 935 725 871 111 900 570 306 424 377 115 167 58 544 215 495 647 563 644 436 933 448 "
        "950 706 469 390 733 207 554 700 600 113 18 393 238 151 316 771 753 654 300 641 316 111 981 319 112 "
        "273 387 184 221 14 923 789 12 614 542 345 420 467 901 645 801 525 303 460 931 19 260 155 359 501 380"),
    (1, 20000, 2): (
        "16074 6509"),
}


@pytest.fixture
def two_cpus(monkeypatch):
    monkeypatch.setattr(multinomial, "_cpu_count", lambda: 2)


def test_stateless_categorical_draws_tensorflows_samples(two_cpus):
    rng = np.random.default_rng(1)
    for batch, classes, count in SHAPES:
        logits = (rng.standard_normal((batch, classes)) * 2).astype(np.float32)
        if (batch, classes, count) not in EXPECTED:
            continue
        got = tf.random.stateless_categorical(logits, count, seed=[7, 11])
        assert got.dtype == tf.int64 and got.shape == [batch, count]
        expected = np.array(EXPECTED[batch, classes, count].split(), np.int64).reshape(batch, count)
        np.testing.assert_array_equal(got.numpy(), expected, err_msg=str((batch, classes, count)))


def test_row_blocks_follow_the_thread_pool():
    # one block while the work is small or the pool has one thread; TensorFlow's split otherwise
    assert multinomial._blocks(8, 2000, 2) == [(0, 8)]
    assert multinomial._blocks(64, 5000, 1) == [(0, 64)]
    assert multinomial._blocks(64, int(50 * (5 * np.log(100) / np.log(2) + 100)), 2) == \
        [(i, i + 8) for i in range(0, 64, 8)]


def test_non_finite_logits_and_dtypes():
    got = tf.random.stateless_categorical([[-np.inf, 0.0, np.inf, np.nan, 1.0]], 8, seed=[1, 2])
    assert got.numpy().tolist() == [[4, 4, 1, 4, 4, 4, 4, 1]]       # only finite logits count
    assert tf.random.stateless_categorical([[-np.inf, -np.inf]], 4, seed=[1, 2]).numpy().tolist() == [[2, 2, 2, 2]]
    got = tf.random.stateless_categorical(np.array([[0.5, 0.2, 0.3]]), 5, seed=[3, 4], dtype=tf.int32)
    assert got.dtype == tf.int32 and got.numpy().tolist() == [[2, 2, 0, 2, 2]]
    for dtype in (tf.float16, tf.bfloat16):
        logits = tf.constant([[0.1, 1.0, -2.0]], dtype)
        assert tf.random.stateless_categorical(logits, 3, seed=[1, 2]).numpy().tolist() == [[1, 2, 0]]


def test_stateful_categorical_continues_its_stream():
    tf.random.set_seed(5)
    logits = np.array([[0.1, 1.0, -2.0, 0.5]], np.float32)
    assert tf.random.categorical(logits, 6, seed=3).numpy().tolist() == [[1, 1, 3, 3, 3, 3]]
    assert tf.random.categorical(logits, 6, seed=3).numpy().tolist() == [[1, 1, 0, 1, 1, 0]]


def test_in_a_graph_and_errors():
    @tf.function
    def draw(logits, seed):
        return tf.random.stateless_categorical(logits, 4, seed=seed)

    spec = draw.get_concrete_function(tf.TensorSpec([None, 3]), tf.TensorSpec([2], tf.int64)).structured_outputs
    assert spec.shape.as_list() == [None, 4]
    assert draw(tf.constant([[0.1, 1.0, -2.0]]), tf.constant([5, 6], tf.int64)).numpy().tolist() == [[0, 1, 0, 1]]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"seed must have shape \[2\], not \[3\]"):
        tf.random.stateless_categorical([[0.1, 1.0]], 3, seed=[1, 2, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"logits should be a matrix, got shape \[2\]"):
        tf.random.stateless_categorical([1.0, 2.0], 3, seed=[1, 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_samples should be non-negative, got -1"):
        tf.random.stateless_categorical([[0.1, 1.0]], -1, seed=[1, 2])
    with pytest.raises(ValueError, match=r"^Argument `dtype` got invalid value <dtype: 'float32'>\. Accepted "
                                         r"dtypes are \(tf\.int32, tf\.int64\)\.$"):
        tf.random.stateless_categorical([[0.1, 1.0]], 3, seed=[1, 2], dtype=tf.float32)


def test_shuffle_permutes_as_tensorflow():
    tf.random.set_seed(3)
    assert [tf.random.shuffle(tf.range(10), seed=7).numpy().tolist() for _ in range(3)] == [[6, 2, 7, 0, 8, 5, 9, 3, 1, 4], [5, 7, 2, 8, 9, 6, 4, 0, 1, 3], [3, 4, 5, 0, 9, 1, 8, 7, 6, 2]]
    assert tf.random.shuffle(tf.reshape(tf.range(12), [6, 2]), seed=7).numpy().tolist() == [[10, 11], [2, 3], [8, 9], [0, 1], [6, 7], [4, 5]]
    tf.random.set_seed(3)
    # its stream is the op's own: a uniform draw with the same seeds starts its own stream
    assert tf.random.shuffle(tf.range(5), seed=7).numpy().tolist() == [1, 3, 2, 0, 4]
    assert tf.random.uniform([2], seed=7).numpy().tolist() == [0.7300214767456055, 0.5961577892303467]
    first = [149, 293, 821, 926, 728, 748, 522, 685, 966, 194, 200, 331]
    assert tf.random.shuffle(tf.range(1000), seed=1).numpy().tolist()[:12] == first

    @tf.function
    def f(x):
        return tf.random.shuffle(x, seed=2)

    tf.random.set_seed(4)
    assert [f(tf.range(7)).numpy().tolist(), f(tf.range(7)).numpy().tolist()] == [[3, 1, 4, 0, 5, 2, 6], [3, 5, 2, 6, 0, 4, 1]]


def test_shuffle_swaps_are_the_same_compiled_or_not(monkeypatch):
    from tensorflux._src.ops import jit
    tf.random.set_seed(1)
    plain_stream = tf.random.shuffle(tf.range(40000), seed=9)
    monkeypatch.setattr(jit, "when_hot", lambda *args, **kwargs: None)        # the Python swap loop
    tf.random.set_seed(1)
    np.testing.assert_array_equal(tf.random.shuffle(tf.range(40000), seed=9).numpy(), plain_stream.numpy())
