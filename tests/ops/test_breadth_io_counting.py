"""tf.io tensor bytes (serialize_tensor/parse_tensor byte-identical to TensorFlow's TensorProto,
decode_raw, decode_csv, matching_files), tf.sequence_mask and tf.math.unsorted_segment_sqrt_n (issue 16):
values, bytes and messages recorded from TensorFlow 2.21, eager and traced."""
import os

import numpy as np
import pytest

import tensorflux as tf

# tf.io.serialize_tensor(value).numpy() in TensorFlow 2.21.
SERIALIZED = [
    (lambda: tf.constant([1., 2.]), b'\x08\x01\x12\x04\x12\x02\x08\x02"\x08\x00\x00\x80?\x00\x00\x00@'),
    (lambda: tf.constant(3), b'\x08\x03\x12\x00"\x04\x03\x00\x00\x00'),
    (lambda: tf.constant(["ab", "c"]), b'\x08\x07\x12\x04\x12\x02\x08\x02B\x02abB\x01c'),
    (lambda: tf.constant([[True]]), b'\x08\n\x12\x08\x12\x02\x08\x01\x12\x02\x08\x01"\x01\x01'),
    (lambda: tf.constant(2.5, tf.float64), b'\x08\x02\x12\x00"\x08\x00\x00\x00\x00\x00\x00\x04@'),
    (lambda: tf.constant([], tf.int64), b'\x08\t\x12\x02\x12\x00'),
    (lambda: tf.constant(b"x"), b'\x08\x07\x12\x00B\x01x'),
    (lambda: tf.constant([[1, 2], [3, 4]], tf.int64),
     b'\x08\t\x12\x08\x12\x02\x08\x02\x12\x02\x08\x02" \x01\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00'
     b'\x03\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00'),
    (lambda: tf.constant([1 + 2j], tf.complex64), b'\x08\x08\x12\x04\x12\x02\x08\x01"\x08\x00\x00\x80?\x00\x00\x00@'),
    (lambda: tf.constant([1.5], tf.float16), b'\x08\x13\x12\x04\x12\x02\x08\x01"\x02\x00>'),
]


@pytest.mark.parametrize("make, expected", SERIALIZED)
def test_serialize_tensor_is_byte_identical_and_parses_back(make, expected):
    value = make()
    serialized = tf.io.serialize_tensor(value)
    assert serialized.dtype == tf.string and serialized.shape == []
    assert serialized.numpy() == expected
    parsed = tf.io.parse_tensor(expected, value.dtype)
    assert parsed.dtype == value.dtype and parsed.shape == value.shape
    np.testing.assert_array_equal(parsed.numpy(), value.numpy())


def test_parse_tensor_errors_and_graph_mode():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Type mismatch between parsed tensor \(float\) and dtype \(double\)"):
        tf.io.parse_tensor(tf.io.serialize_tensor(tf.constant([1., 2.])), tf.float64)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Could not parse `serialized` as TensorProto, base64: //8="):
        tf.io.parse_tensor(b"\xff\xff", tf.float32)
    # A TensorProto promising more elements than it holds is refused before allocation.
    lying = b'\x08\x01\x12\x06\x12\x04\x08\xe8\x07"\x04\x00\x00\x80?'
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.io.parse_tensor(lying, tf.float32)

    @tf.function
    def round_trip(x):
        parsed = tf.io.parse_tensor(tf.io.serialize_tensor(x), tf.float32)
        assert parsed.shape.rank is None
        return parsed

    np.testing.assert_array_equal(round_trip(tf.constant([[1., 2.]])).numpy(), [[1., 2.]])


def test_decode_raw_matches_tensorflow():
    assert tf.io.decode_raw(tf.constant([b"\x01\x00\x00\x00\x02\x00\x00\x00"]), tf.int32).numpy().tolist() == [[1, 2]]
    out = tf.io.decode_raw(b"\x00\x01", tf.int16, little_endian=False)
    assert out.numpy().tolist() == [1] and out.dtype == tf.int16
    padded = tf.io.decode_raw([b"abc", b"de"], tf.uint8, fixed_length=4)
    assert padded.numpy().tolist() == [[97, 98, 99, 0], [100, 101, 0, 0]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="but element 1 has size 4 != 2"):
        tf.io.decode_raw([b"abcd", b"ab"], tf.uint8)
    with pytest.raises(tf.errors.InvalidArgumentError, match="length 3 that is not a multiple of 4, the size of float"):
        tf.io.decode_raw([b"abc"], tf.float32)
    assert tf.function(lambda: tf.io.decode_raw(tf.constant(["abcd"]), tf.uint8))().shape == [1, 4]


def test_decode_csv_matches_tensorflow():
    a, b, c = tf.io.decode_csv(["1,2.5,a", '3,,"b,c"'], [[0], [1.0], ["x"]])
    assert a.dtype == tf.int32 and a.numpy().tolist() == [1, 3]
    assert b.dtype == tf.float32 and b.numpy().tolist() == [2.5, 1.0]
    assert c.numpy().tolist() == [b"a", b"b,c"]
    x, y = tf.io.decode_csv("4,5", [tf.constant([], tf.int64), [0.]])
    assert (x.dtype, x.shape, x.numpy(), y.numpy()) == (tf.int64, [], 4, 5.0)
    assert [t.numpy().tolist() for t in tf.io.decode_csv(["1;2"], [[0], [0]], field_delim=";")] == [[1], [2]]
    assert [t.numpy().tolist() for t in tf.io.decode_csv(["1,2,3"], [[0], [0]], select_cols=[0, 2])] == [[1], [3]]
    assert [t.numpy().tolist() for t in tf.io.decode_csv(["NA,2"], [[7], [0]], na_value="NA")] == [[7], [2]]
    assert tf.io.decode_csv(['"x""y",1'], [[""], [0]])[0].numpy().tolist() == [b'x"y']
    for records, defaults, message in [
            (["1,"], [tf.constant([], tf.int32), tf.constant([], tf.int32)], "Field 1 is required but missing in record 0!"),
            (["a,1"], [[0], [0]], "Field 0 in record 0 is not a valid int32: a"),
            (["1,2,3"], [[0], [0]], "Expect 2 fields but have 3 in record 0"),
            (["1"], [[0], [0]], "Expect 2 fields but have 1 in record 0")]:
        with pytest.raises(tf.errors.InvalidArgumentError, match=message):
            tf.io.decode_csv(records, defaults)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def parse(lines):
        first, second = tf.io.decode_csv(lines, [[0], [""]])
        assert first.shape.as_list() == [None] and second.dtype == tf.string
        return first

    assert parse(tf.constant(["1,x", "2,y"])).numpy().tolist() == [1, 2]


def test_matching_files_is_sorted_across_patterns(tmp_path):
    for name in ("b.txt", "a.txt", "c.csv"):
        (tmp_path / name).write_bytes(b"")
    base = os.fspath(tmp_path)
    assert tf.io.matching_files(os.path.join(base, "*.txt")).numpy().tolist() == \
        [os.fsencode(os.path.join(base, n)) for n in ("a.txt", "b.txt")]
    both = tf.io.matching_files([os.path.join(base, "c*"), os.path.join(base, "a*")])
    assert both.numpy().tolist() == [os.fsencode(os.path.join(base, n)) for n in ("a.txt", "c.csv")]
    none = tf.io.matching_files(os.path.join(base, "zz*"))
    assert none.shape == [0] and none.dtype == tf.string


def test_sequence_mask_matches_tensorflow():
    assert tf.sequence_mask([1, 3, 2], 5).numpy().tolist() == [
        [True, False, False, False, False], [True, True, True, False, False], [True, True, False, False, False]]
    assert tf.sequence_mask([[1, 3], [2, 0]]).numpy().tolist() == [
        [[True, False, False], [True, True, True]], [[True, True, False], [False, False, False]]]
    as_float = tf.sequence_mask([1, 3], dtype=tf.float32)
    assert as_float.dtype == tf.float32 and as_float.numpy().tolist() == [[1., 0., 0.], [1., 1., 1.]]
    assert tf.sequence_mask([1, 2], 2, dtype=tf.int32).numpy().tolist() == [[1, 0], [1, 1]]
    assert tf.sequence_mask([1.5, 2]).numpy().tolist() == [[True, True], [True, True]]
    assert tf.function(lambda x: tf.sequence_mask(x, 4))(tf.constant([1, 2])).shape == [2, 4]


def test_unsorted_segment_sqrt_n_matches_tensorflow():
    out = tf.math.unsorted_segment_sqrt_n([[1., 2.], [3., 4.], [5., 6.]], [0, 1, 0], 3)
    np.testing.assert_allclose(out.numpy(), [[4.242641, 5.656854], [3., 4.], [0., 0.]], rtol=1e-6)
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'T' of int32 is not in the list"):
        tf.math.unsorted_segment_sqrt_n([1, 2, 3], [0, 1, 0], 2)
    from helpers import check_gradients
    check_gradients(lambda d: tf.math.unsorted_segment_sqrt_n(d, [0, 1, 0], 3), [[[1., 2.], [3., 4.], [5., 6.]]])


def test_encoded_strings_match_tensorflow(tmp_path):
    import gzip
    import zlib
    assert tf.io.encode_base64(["hi?>", b"\xff\xfe"]).numpy().tolist() == [b"aGk_Pg", b"__4"]
    assert tf.io.encode_base64("hi?>", pad=True).numpy() == b"aGk_Pg=="
    assert tf.io.decode_base64(["aGk_Pg", "aGk_Pg=="]).numpy().tolist() == [b"hi?>", b"hi?>"]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Base64 string length cannot be 1 modulo 4."):
        tf.io.decode_base64("a")
    assert tf.io.decode_compressed([zlib.compress(b"abc")], "ZLIB").numpy().tolist() == [b"abc"]
    assert tf.io.decode_compressed(gzip.compress(b"xyz"), "GZIP").numpy() == b"xyz"
    assert tf.io.decode_compressed(b"raw", "").numpy() == b"raw"
    with pytest.raises(tf.errors.DataLossError, match="inflate\\(\\) failed with error -3: incorrect header check"):
        tf.io.decode_compressed(b"raw", "ZLIB")
    assert tf.io.is_jpeg(b"\xff\xd8\xff\xe0abc").numpy() and not tf.io.is_jpeg(b"abc").numpy()
    (tmp_path / "a.txt").write_bytes(b"")
    variable = tf.io.match_filenames_once(os.path.join(os.fspath(tmp_path), "*.txt"))
    assert not variable.trainable
    assert variable.numpy().tolist() == [os.fsencode(os.path.join(os.fspath(tmp_path), "a.txt"))]


# tf.io.encode_jpeg(tf.zeros([3, 5, 3], tf.uint8)) from TensorFlow 2.21.
SMALL_JPEG = bytes.fromhex(
    "ffd8ffe000104a46494600010101012c012c0000ffdb0043000201010101010201010102020202020403020202020504040304060506060605060606070908060709070606080b08090a0a0a0a0a06080b0c0b0a0c090a0a0affdb004301020202020202050303050a0706070a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0affc00011080003000503012200021101031101ffc4001f0000010501010101010100000000000000000102030405060708090a0bffc400b5100002010303020403050504040000017d01020300041105122131410613516107227114328191a1082342b1c11552d1f02433627282090a161718191a25262728292a3435363738393a434445464748494a535455565758595a636465666768696a737475767778797a838485868788898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae1e2e3e4e5e6e7e8e9eaf1f2f3f4f5f6f7f8f9faffc4001f0100030101010101010101010000000000000102030405060708090a0bffc400b51100020102040403040705040400010277000102031104052131061241510761711322328108144291a1b1c109233352f0156272d10a162434e125f11718191a262728292a35363738393a434445464748494a535455565758595a636465666768696a737475767778797a82838485868788898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae2e3e4e5e6e7e8e9eaf2f3f4f5f6f7f8f9faffda000c03010002110311003f00fe7fe8a28a00ffd9")


def test_extract_jpeg_shape_matches_tensorflow():
    shape = tf.io.extract_jpeg_shape(SMALL_JPEG)
    assert shape.dtype == tf.int32 and shape.numpy().tolist() == [3, 5, 3]
    assert tf.io.extract_jpeg_shape(SMALL_JPEG, output_type=tf.int64).dtype == tf.int64
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid JPEG data, size 7"):
        tf.io.extract_jpeg_shape(b"notjpeg")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid JPEG data"):
        tf.io.extract_jpeg_shape(SMALL_JPEG[:20])  # a segment length pointing past the end
