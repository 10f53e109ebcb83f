"""Sweep table, part 5: op families added alongside the sweep (space/batch and depth moves, bitcasts,
CTC helpers, morphology, local response normalization, raw and CSV decoding, tensor serialization).

An entry whose op type the registry does not hold (a family not in this build) is skipped by the test.
"""
import numpy as np

from sweep import F, Case, Fix, P, T
from table_rest import PRESENT_FILE

X = F()
X_INT = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
IMAGE = F((1, 4, 4, 1))
VOLUME = F((1, 4, 4, 4, 1))
TRUE_CLASSES = np.array([[1], [2]], np.int64)
# A 2x3 grey JPEG (TensorFlow's tf.io.encode_jpeg of zeros), for the JPEG header ops.
JPEG_2X3 = bytes.fromhex(
    "ffd8ffe000104a46494600010101012c012c0000ffdb004300020101010101020101010202020202040302020202050404"
    "0304060506060605060606070908060709070606080b08090a0a0a0a0a06080b0c0b0a0c090a0a0affc0000b0800020003"
    "01011100ffc4001f0000010501010101010100000000000000000102030405060708090a0bffc400b51000020103030204"
    "03050504040000017d01020300041105122131410613516107227114328191a1082342b1c11552d1f02433627282090a16"
    "1718191a25262728292a3435363738393a434445464748494a535455565758595a636465666768696a737475767778797a"
    "838485868788898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6"
    "d7d8d9dae1e2e3e4e5e6e7e8e9eaf1f2f3f4f5f6f7f8f9faffda0008010100003f00fe7febffd9")

# A 2x3 RGB PNG (unfiltered rows of zeros).
PNG_2X3 = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000030000000208020000001216f14d0000000b49444154789c6360c004"
    "00001400017dfe1eee0000000049454e44ae426082")
# A 2x3 black lossless WebP (Pillow's).
WEBP_2X3 = bytes.fromhex("524946461a000000574542505650384c0e0000002f02400000071011fd0f4444ff03")
# A 3x2 GIF (one frame, two-colour global table) and a 3x2 24-bit BMP.
GIF_2X3 = bytes.fromhex("47494638376103000200810000000000ffffff0000000000002c000000000300020000080700010410283020003b")
BMP_2X3 = bytes.fromhex(
    "424d4e0000000000000036000000280000000300000002000000010018000000000018000000c40e0000c40e000000000000"
    "00000000ffffff000000ffffff000000000000ffffff000000000000")

# A 2-frame stereo 16-bit PCM WAV at 8000 Hz (TensorFlow's tf.audio.encode_wav of [[0.5, -0.5], [0.25, 0.125]]).
WAV_2X2 = bytes.fromhex("524946462c00000057415645666d7420100000000100020040"
                        "1f0000007d0000040010006461746108000000004000c000200010")

def _gamma_alpha_gradient(tf, alpha):
    """RandomGammaGrad is made by the gradient of tf.random.gamma with respect to alpha."""
    with tf.GradientTape() as tape:
        tape.watch(alpha)
        samples = tf.random.gamma([3], alpha, seed=1)
    return tape.gradient(samples, alpha)


CASES = [
    Case("SpaceToBatchND", lambda tf, x, block: tf.space_to_batch(x, block, [[0, 0], [0, 0]]),
         x=T("float", F((1, 2, 2, 1))), block=P("ints", [2, 2])),
    Case("BatchToSpaceND", lambda tf, x, block: tf.batch_to_space(x, block, [[0, 0], [0, 0]]),
         x=T("float", F((4, 1, 1, 1))), block=P("ints", [2, 2])),
    Case("Bitcast", lambda tf, x: tf.bitcast(x, tf.int32), x=T("float", X)),
    Case("BroadcastArgs", lambda tf, s0, s1: tf.broadcast_dynamic_shape(s0, s1),
         s0=T("int", np.array([2, 3], np.int32)), s1=T("int", np.array([1, 3], np.int32))),
    Case("GuaranteeConst", lambda tf, x: tf.guarantee_const(x), x=T("float", X)),
    Case("CTCUniqueLabels", lambda tf, labels: tf.nn.ctc_unique_labels(labels), labels=T("int", X_INT)),
    Case("CollapseRepeated", lambda tf, labels, lengths: tf.nn.collapse_repeated(labels, lengths),
         labels=T("int", X_INT), lengths=T("int", np.array([3, 2], np.int32))),
    Case("IsotonicRegression", lambda tf, x: tf.nn.isotonic_regression(x), x=T("float", X)),
    Case("DepthToSpace", lambda tf, x, block: tf.nn.depth_to_space(x, block), x=T("float", F((1, 1, 1, 4))),
         block=P("size", 2)),
    Case("SpaceToDepth", lambda tf, x, block: tf.nn.space_to_depth(x, block), x=T("float", F((1, 2, 2, 1))),
         block=P("size", 2)),
    Case("Dilation2D", lambda tf, x, f: tf.nn.dilation2d(x, f, [1, 1, 1, 1], "VALID", "NHWC", [1, 1, 1, 1]),
         x=T("float", IMAGE), f=T("float", F((2, 2, 1)))),
    Case("LRN", lambda tf, x: tf.nn.local_response_normalization(x), x=T("float", F((1, 2, 2, 3)))),
    Case("InTopKV2", lambda tf, targets, predictions, k: tf.math.in_top_k(targets, predictions, k),
         targets=T("int", np.array([0, 2], np.int32)), predictions=T("float", X), k=P("size", 2)),
    Case("InvertPermutation", lambda tf, x: tf.math.invert_permutation(x), x=T("int", np.array([2, 0, 1], np.int32))),
    Case("NextAfter", lambda tf, x, y: tf.math.nextafter(x, y), x=T("float", X), y=T("float", F(lo=0.3))),
    Case("DecodeRaw", lambda tf, b: tf.io.decode_raw(b, tf.uint8), b=T("string", np.array(["abcd", "efgh"]))),
    Case("DecodePaddedRaw", lambda tf, b: tf.io.decode_raw(b, tf.uint8, fixed_length=4),
         b=T("string", np.array(["ab", "efgh"]))),
    Case("DecodeCSV", lambda tf, records: tf.io.decode_csv(records, [[0], [0.0]]),
         records=T("string", np.array(["1,2.5", "3,4"]))),
    Case("MatchingFiles", lambda tf, pattern: tf.io.matching_files(pattern),
         pattern=T("string", PRESENT_FILE[:-2] + "?n")),
    Case("SerializeTensor", lambda tf, x: tf.io.serialize_tensor(x), x=T("float", X)),
    Case("ParseTensor", lambda tf, serialized, replacement: tf.io.parse_tensor(
        serialized if replacement is None else replacement, tf.float32),
        serialized=Fix(lambda tf: tf.io.serialize_tensor(tf.constant([1.5, 2.5]))), replacement=P("string", None)),
    Case("Conv3D", lambda tf, x, f: tf.nn.conv3d(x, f, [1, 1, 1, 1, 1], "VALID"), x=T("float", VOLUME),
         f=T("float", F((2, 2, 2, 1, 1)))),
    Case("Conv3DBackpropInputV2", lambda tf, x, f, output_shape: tf.nn.conv3d_transpose(
        x, f, output_shape, [1, 1, 1, 1, 1], "VALID"), x=T("float", F((1, 3, 3, 3, 1))),
        f=T("float", F((2, 2, 2, 1, 1))), output_shape=P("shape", [1, 4, 4, 4, 1])),
    Case("MaxPoolWithArgmax", lambda tf, x, ksize: tf.nn.max_pool_with_argmax(x, ksize, 2, "VALID"),
         x=T("float", IMAGE), ksize=P("size", 2)),
    Case("UniformCandidateSampler", lambda tf, classes, n: tf.random.uniform_candidate_sampler(
        classes, 1, n, True, 5, seed=1), classes=T("int", TRUE_CLASSES), n=P("size", 2)),
    Case("LogUniformCandidateSampler", lambda tf, classes, n: tf.random.log_uniform_candidate_sampler(
        classes, 1, n, True, 5, seed=1), classes=T("int", TRUE_CLASSES), n=P("size", 2)),
    Case("LearnedUnigramCandidateSampler", lambda tf, classes, n: tf.random.learned_unigram_candidate_sampler(
        classes, 1, n, True, 5, seed=1), classes=T("int", TRUE_CLASSES), n=P("size", 2)),
    Case("FixedUnigramCandidateSampler", lambda tf, classes, n: tf.random.fixed_unigram_candidate_sampler(
        classes, 1, n, True, 5, unigrams=[1, 1, 1, 1, 1], seed=1), classes=T("int", TRUE_CLASSES), n=P("size", 2)),
    Case("ComputeAccidentalHits", lambda tf, classes, sampled: tf.nn.compute_accidental_hits(classes, sampled, 1),
         classes=T("int", TRUE_CLASSES), sampled=T("int", np.array([2, 4], np.int64))),
    Case("EncodeBase64", lambda tf, s: tf.io.encode_base64(s), s=T("string", np.array(["abc", "de"]))),
    Case("DecodeBase64", lambda tf, s: tf.io.decode_base64(s), s=T("string", np.array(["YWJj", "ZGU"]))),
    Case("DecodeCompressed", lambda tf, s: tf.io.decode_compressed(s), s=T("string", np.array(["abc", "de"]))),
    Case("IsJpeg", lambda tf, s: tf.io.is_jpeg(s), s=T("string", np.asarray(JPEG_2X3))),
    Case("ExtractJpegShape", lambda tf, s: tf.io.extract_jpeg_shape(s), s=T("string", np.asarray(JPEG_2X3))),
    Case("DecodeJpeg", lambda tf, s, channels: tf.io.decode_jpeg(s, channels=channels),
         s=T("string", np.asarray(JPEG_2X3)), channels=P("size", 3)),
    Case("DecodeAndCropJpeg", lambda tf, s, window: tf.io.decode_and_crop_jpeg(s, window),
         s=T("string", np.asarray(JPEG_2X3)), window=T("int", np.array([0, 0, 1, 2], np.int32))),
    Case("DecodePng", lambda tf, s, channels: tf.io.decode_png(s, channels=channels),
         s=T("string", np.asarray(PNG_2X3)), channels=P("size", 3)),
    Case("DecodeImage", lambda tf, s: tf.io.decode_image(s, expand_animations=False),
         s=T("string", np.asarray(PNG_2X3))),
    Case("EncodePng", lambda tf, image: tf.io.encode_png(image), image=T("int", np.zeros((2, 3, 1), np.uint8))),
    Case("DecodeGif", lambda tf, s: tf.io.decode_gif(s), s=T("string", np.asarray(GIF_2X3))),
    Case("DecodeWebP", lambda tf, s, channels: tf.io.decode_webp(s, channels=channels),
         s=T("string", np.asarray(WEBP_2X3)), channels=P("size", 3)),
    Case("StringToHashBucketFast", lambda tf, s, n: tf.strings.to_hash_bucket_fast(s, n),
         s=T("string", np.array(["ab", "cde"])), n=P("size", 10)),
    Case("StringToHashBucket", lambda tf, s, n: tf.strings.to_hash_bucket(s, n),
         s=T("string", np.array(["ab", "cde"])), n=P("size", 10)),
    Case("StringToHashBucketStrong", lambda tf, s, n: tf.strings.to_hash_bucket_strong(s, n, [1, 2]),
         s=T("string", np.array(["ab", "cde"])), n=P("size", 10)),
    Case("ParseSequenceExampleV2", lambda tf, s: tf.io.parse_sequence_example(
        s, {"n": tf.io.FixedLenFeature([], tf.int64, default_value=0)},
        {"t": tf.io.VarLenFeature(tf.int64)}), s=T("string", np.array([b"", b""]))),
    Case("SerializeSparse", lambda tf, i, v, s: tf.io.serialize_sparse(tf.sparse.SparseTensor(i, v, s)),
         i=T("int", np.array([[0, 1], [1, 0]], np.int64)), v=T("float", F((2,))), s=T("int", np.array([2, 3], np.int64))),
    Case("SerializeManySparse", lambda tf, i, v, s: tf.io.serialize_many_sparse(tf.sparse.SparseTensor(i, v, s)),
         i=T("int", np.array([[0, 1], [1, 0]], np.int64)), v=T("float", F((2,))), s=T("int", np.array([2, 3], np.int64))),
    Case("DeserializeManySparse", lambda tf, x: tf.io.deserialize_many_sparse(x, tf.float32),
         x=Fix(lambda tf: tf.io.serialize_many_sparse(tf.sparse.SparseTensor([[0, 1]], [1.5], [2, 3])))),
    Case("DecodeJSONExample", lambda tf, s: tf.io.decode_json_example(s),
         s=T("string", np.array(['{"features": {}}', "{}"]))),
    Case("Fingerprint", lambda tf, x: tf.fingerprint(x), x=T("int", np.array([[1, 2], [3, 4]], np.int32))),
    Case("EncodeJpeg", lambda tf, image, quality: tf.io.encode_jpeg(image, quality=quality),
         image=T("int", np.zeros((2, 3, 3), np.uint8)), quality=P("size", 80)),
    Case("EncodeJpegVariableQuality", lambda tf, image, quality: tf.image.adjust_jpeg_quality(image, quality),
         image=T("int", np.zeros((2, 3, 3), np.uint8)), quality=T("int", np.array(80, np.int32))),
    Case("DecodeBmp", lambda tf, s, channels: tf.io.decode_bmp(s, channels=channels),
         s=T("string", np.asarray(BMP_2X3)), channels=P("size", 3)),
    # tf.sets (dense/sparse set operations) and tf.edit_distance
    Case("DenseToDenseSetOperation", lambda tf, a, b: tf.sets.intersection(a, b),
         a=T("int", np.array([[1, 2, 3], [4, 5, 6]], np.int32)), b=T("int", np.array([[1, 3, 5], [4, 4, 6]], np.int32))),
    Case("DenseToSparseSetOperation", lambda tf, a, i, v, s: tf.sets.union(a, tf.sparse.SparseTensor(i, v, s)),
         a=T("int", np.array([[1, 2], [3, 4]], np.int32)), i=T("int", np.array([[0, 0], [1, 1]], np.int64)),
         v=T("int", np.array([7, 8], np.int32)), s=T("int", np.array([2, 2], np.int64))),
    Case("SparseToSparseSetOperation",
         lambda tf, i, v, s: tf.sets.difference(tf.sparse.SparseTensor(i, v, s), tf.sparse.SparseTensor(i, v, s)),
         i=T("int", np.array([[0, 0], [1, 1]], np.int64)), v=T("int", np.array([7, 8], np.int32)),
         s=T("int", np.array([2, 2], np.int64))),
    Case("SetSize", lambda tf, i, v, s: tf.sets.size(tf.sparse.SparseTensor(i, v, s)),
         i=T("int", np.array([[0, 0], [1, 1]], np.int64)), v=T("int", np.array([7, 8], np.int32)),
         s=T("int", np.array([2, 2], np.int64))),
    Case("EditDistance", lambda tf, i, v, s: tf.edit_distance(tf.sparse.SparseTensor(i, v, s),
                                                               tf.sparse.SparseTensor([[0, 0]], ["a"], [1, 1])),
         i=T("int", np.array([[0, 0], [0, 1]], np.int64)), v=T("string", np.array([b"a", b"b"])),
         s=T("int", np.array([1, 2], np.int64))),
    Case("EncodeWav", lambda tf, a, rate: tf.audio.encode_wav(a, rate),
         a=T("float", F((3, 2), -0.5, 0.5)), rate=T("int", np.array(8000, np.int32))),
    Case("DecodeWav", lambda tf, s: tf.audio.decode_wav(s, desired_channels=1),
         s=T("string", np.array(WAV_2X2, dtype=object))),
    Case("StatelessMultinomial", lambda tf, logits, n, seed: tf.random.stateless_categorical(logits, n, seed),
         logits=T("float", X), n=P("size", 4), seed=T("int", np.array([1, 2], np.int64))),
    Case("RandomGamma", lambda tf, shape, alpha: tf.random.gamma(shape, alpha, seed=1),
         shape=P("shape", [2, 3]), alpha=T("float", np.array([0.5, 2.0], np.float32))),
    Case("StatelessRandomGammaV2", lambda tf, alpha, seed: tf.random.stateless_gamma([3, 2], seed, alpha),
         alpha=T("float", np.array([0.5, 2.0], np.float32)), seed=T("int", np.array([1, 2], np.int64))),
    Case("RandomGammaGrad", lambda tf, alpha: _gamma_alpha_gradient(tf, alpha),
         alpha=T("float", np.array([0.5, 2.0], np.float32))),
    Case("RandomPoissonV2", lambda tf, shape, lam: tf.random.poisson(shape, lam, seed=1),
         shape=P("shape", [2, 3]), lam=T("int", np.array([1, 20], np.int32))),
    # Integer rates: a NaN rate (the float variants' "nan") makes TensorFlow's Poisson kernel loop forever.
    Case("StatelessRandomPoisson", lambda tf, lam, seed: tf.random.stateless_poisson([3, 2], seed, lam),
         lam=T("int", np.array([1, 20], np.int32)), seed=T("int", np.array([1, 2], np.int64))),
]
