"""tf.lookup: every expected value and error text below was printed by TensorFlow 2.21 for the same calls."""
import numpy as np
import pytest

import tensorflux as tf

FRUIT = ["apple", "banana", "cherry"]


def _table():
    init = tf.lookup.KeyValueTensorInitializer(tf.constant(FRUIT), tf.constant([0, 1, 2], tf.int64))
    return tf.lookup.StaticHashTable(init, default_value=-1)


def test_static_hash_table_lookup_dense_sparse_ragged():
    t = _table()
    assert t.lookup(tf.constant(["apple", "x", "cherry"])).numpy().tolist() == [0, -1, 2]
    assert t[tf.constant([["banana"]])].numpy().tolist() == [[1]]
    assert t.size().numpy() == 3 and t.size().dtype == tf.int64
    assert (t.key_dtype, t.value_dtype, t.name) == (tf.string, tf.int64, None)
    assert t.default_value.numpy() == -1 and t.default_value.dtype == tf.int64
    assert t.lookup(tf.ragged.constant([["apple"], ["x", "banana"]])).to_list() == [[0], [-1, 1]]
    sparse = t.lookup(tf.sparse.SparseTensor([[0, 0], [1, 2]], ["cherry", "q"], [2, 3]))
    assert isinstance(sparse, tf.sparse.SparseTensor)
    assert sparse.values.numpy().tolist() == [2, -1] and sparse.dense_shape.numpy().tolist() == [2, 3]
    keys, values = t.export()   # TensorFlow lists entries in its hash map's order, which changes per process
    assert sorted(zip(keys.numpy().tolist(), values.numpy().tolist())) == [(b"apple", 0), (b"banana", 1),
                                                                           (b"cherry", 2)]
    assert t.resource_handle.dtype == tf.resource
    assert sorted(n for n in dir(t) if not n.startswith("_")) == [
        "default_value", "export", "key_dtype", "lookup", "name", "resource_handle", "size", "value_dtype"]


def test_static_hash_table_in_tf_function_is_one_find_op():
    t = _table()

    @tf.function
    def f(x):
        return t.lookup(x)

    assert f(tf.constant(["banana", "zz"])).numpy().tolist() == [1, -1]
    ops = [op.type for op in f.get_concrete_function(tf.TensorSpec([None], tf.string)).graph.get_operations()]
    assert ops.count("LookupTableFindV2") == 1 and "HashTableV2" not in ops


def test_static_hash_table_inferred_dtypes():
    t = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer([1, 2], ["a", "b"]), "z")
    assert t.lookup(tf.constant([2, 3])).numpy().tolist() == [b"b", b"z"]
    floats = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer([1, 2], [0.5, 1.5]), 0.0)
    with pytest.raises(TypeError, match=r"^Dtype of argument `keys` must be <dtype: 'int32'>, received: "
                                        r"<dtype: 'int64'>$"):
        floats.lookup(tf.constant([2, 3], tf.int64))
    doubles = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
        [1, 2], [0.5, 1.5], key_dtype=tf.int64, value_dtype=tf.float64), 0.0)
    out = doubles.lookup(tf.constant([2, 3], tf.int64))
    assert out.dtype == tf.float64 and out.numpy().tolist() == [1.5, 0.0]
    same = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a", "a"], [1, 1]), -1)
    assert same.size().numpy() == 1
    grid = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(tf.constant([[1, 2]]), tf.constant([[3, 4]])),
                                     -1)
    assert grid.lookup(tf.constant([2])).numpy().tolist() == [4]
    two_d = _table().lookup(tf.constant([["apple", "c"], ["banana", "banana"]]))
    assert two_d.shape == (2, 2) and two_d.numpy().tolist() == [[0, -1], [1, 1]]


def test_static_hash_table_errors():
    t = _table()
    with pytest.raises(TypeError, match=r"^Dtype of argument `keys` must be <dtype: 'string'>, received: "
                                        r"<dtype: 'int32'>$"):
        t.lookup(tf.constant([1, 2]))
    with pytest.raises(TypeError, match=r"^Cannot convert 'x' to EagerTensor of dtype int64$"):
        tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(FRUIT, tf.constant([0, 1, 2], tf.int64)), "x")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"^\{\{function_node __wrapped__LookupTableImportV2_"
                                                             r"device_/job:localhost/replica:0/task:0/device:CPU:0\}\} "
                                                             r"Expected shape \[2\] for value, got \[1\] "
                                                             r"\[Op:LookupTableImportV2\]"):
        tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a", "b"], [1]), -1)
    with pytest.raises(tf.errors.FailedPreconditionError, match=r"HashTable has different value for same key\. Key a "
                                                                r"has 1 and trying to add value 2 "
                                                                r"\[Op:LookupTableImportV2\]"):
        tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a", "a"], [1, 2]), -1)
    with pytest.raises(ValueError, match=r"^Shapes \(2,\) and \(\) are not compatible$"):
        tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a"], [1]), default_value=[1, 2])
    with pytest.raises(tf.errors.NotFoundError, match=r"^Could not find device for node: \{\{node HashTableV2\}\} = "
                                                      r"HashTableV2\["):
        tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer([1.5], [1]), -1)


def test_static_vocabulary_table_out_of_vocabulary_buckets():
    init = tf.lookup.KeyValueTensorInitializer(tf.constant(FRUIT), tf.constant([0, 1, 2], tf.int64))
    v = tf.lookup.StaticVocabularyTable(init, num_oov_buckets=3)
    assert v.lookup(tf.constant(["apple", "x", "zzz", "cherry", "hello world"])).numpy().tolist() == [0, 5, 3, 2, 3]
    assert v.size().numpy() == 6 and v.name is None and v.value_dtype == tf.int64
    assert not hasattr(v, "export") and not hasattr(v, "default_value")
    ints = tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(
        tf.constant([10, 20], tf.int64), tf.constant([0, 1], tf.int64)), num_oov_buckets=5)
    assert ints.lookup(tf.constant([10, 7, 20, 123456789], tf.int64)).numpy().tolist() == [0, 5, 1, 3]
    narrow = tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(
        tf.constant([1, 2], tf.int64), tf.constant([0, 1], tf.int64)), 3, lookup_key_dtype=tf.int32)
    assert narrow.key_dtype == tf.int32
    assert narrow.lookup(tf.constant([1, 5, 99], tf.int32)).numpy().tolist() == [0, 3, 2]
    hashed_only = tf.lookup.StaticVocabularyTable(None, 4)
    assert hashed_only.lookup(tf.constant(["a", "zz"])).numpy().tolist() == [3, 2]
    small = tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(
        ["a", "b"], tf.constant([0, 1], tf.int64)), 2)
    assert small.lookup(tf.constant(["a", "b", "c"])).numpy().tolist() == [0, 1, 2]
    assert small.lookup(tf.ragged.constant([["c"], []])).to_list() == [[2], []]


def test_static_vocabulary_table_graph_matches_tensorflow_op_sequence():
    v = tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(
        ["a", "b"], tf.constant([0, 1], tf.int64)), 2)

    @tf.function
    def g(x):
        return v.lookup(x)

    ops = [op.type for op in g.get_concrete_function(tf.TensorSpec([None], tf.string)).graph.get_operations()]
    kept = [o for o in ops if o in ("StringToHashBucketFast", "LookupTableFindV2", "LookupTableSizeV2", "AddV2",
                                     "NotEqual", "SelectV2")]
    assert kept == ["StringToHashBucketFast", "LookupTableFindV2", "LookupTableSizeV2", "AddV2", "NotEqual",
                    "SelectV2"]
    assert g(tf.constant(["b", "c"])).numpy().tolist() == [1, 2]


def test_static_vocabulary_table_errors():
    init = tf.lookup.KeyValueTensorInitializer(["a", "b"], [1, 2])
    with pytest.raises(ValueError, match=r"^`num_oov_buckets` must be > 0; use StaticHashTable\.$"):
        tf.lookup.StaticVocabularyTable(init, num_oov_buckets=-1)
    with pytest.raises(TypeError, match=r"^Invalid `value_dtype`, expected <dtype: 'int64'> but got "
                                        r"<dtype: 'int32'>\.$"):
        tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(["a"], [0]), 2)
    with pytest.raises(TypeError, match=r"^Invalid `key_dtype`, expected one of \(tf\.int64, tf\.string\), but got "
                                        r"<dtype: 'float32'>\.$"):
        tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer([1.5], tf.constant([1], tf.int64)), 1)
    with pytest.raises(TypeError, match=r"^Invalid `key_dtype`, expected integer but got <dtype: 'string'>\.$"):
        tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(["a"], tf.constant([1], tf.int64)), 1,
                                        lookup_key_dtype=tf.int64)
    ints = tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(
        tf.constant([1], tf.int64), tf.constant([1], tf.int64)), 1)
    with pytest.raises(TypeError, match=r"^Dtype of argument `keys` must be <dtype: 'int64'>, received: "
                                        r"<dtype: 'string'>$"):
        ints.lookup(tf.constant(["a"]))


@pytest.fixture
def vocab_file(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("emerson\t10\nlake\t20\npalmer\t30\n")
    return str(path)


def test_text_file_initializer_columns_lines_and_offsets(vocab_file, tmp_path):
    def table(*args, default=-1, **kw):
        return tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(vocab_file, *args, **kw), default)

    assert table(tf.string, 0, tf.int64, 1).lookup(tf.constant(["lake"])).numpy().tolist() == [20]
    assert table(tf.string, 0, tf.int64, 1, vocab_size=2).size().numpy() == 2
    offset = table(tf.string, 0, tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER, value_index_offset=100)
    assert offset.lookup(tf.constant(["lake"])).numpy().tolist() == [101]
    lines = table(tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER, tf.string, tf.lookup.TextFileIndex.WHOLE_LINE,
                  default="?")
    assert lines.lookup(tf.constant([0, 2, 3], tf.int64)).numpy().tolist() == [b"emerson\t10", b"palmer\t30", b"?"]
    spaced = tf.lookup.StaticVocabularyTable(tf.lookup.TextFileInitializer(
        vocab_file, tf.string, tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER,
        delimiter=" "), 1)
    assert spaced.lookup(tf.constant(["lake\t20", "x"])).numpy().tolist() == [1, 3]
    assert (tf.lookup.TextFileIndex.WHOLE_LINE, tf.lookup.TextFileIndex.LINE_NUMBER) == (-2, -1)
    other = tmp_path / "space.txt"
    other.write_text("emerson 10\nlake 20\npalmer 30\n")
    by_space = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(str(other), tf.string, 0, tf.int64, 1,
                                                                       delimiter=" "), -1)
    assert by_space.lookup(tf.constant(["lake", "x", "palmer"])).numpy().tolist() == [20, -1, 30]


def test_text_file_initializer_file_errors(vocab_file, tmp_path):
    def build(path, *args, default=-1, **kw):
        return tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(path, *args, **kw), default)

    prefix = r"^\{\{function_node __wrapped__InitializeTableFromTextFileV2_device_/job:localhost/replica:0/task:0/" \
             r"device:CPU:0\}\} "
    with pytest.raises(tf.errors.InvalidArgumentError, match=prefix + r"Invalid number of columns in .*v\.txt line 0 "
                                                                      r"\(emerson\t10\) : expected at least 3 got 2 "
                                                                      r"\[Op:InitializeTableFromTextFileV2\]"):
        build(vocab_file, tf.string, 0, tf.int64, 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match=prefix + r"Invalid vocab_size in .*v\.txt: expected 5 "
                                                                      r"but got 3 \[Op:"):
        build(vocab_file, tf.string, 0, tf.int64, 1, vocab_size=5)
    with pytest.raises(tf.errors.NotFoundError, match=prefix + r".*nope\.txt; No such file or directory \[Op:"):
        build(str(tmp_path / "nope.txt"), tf.string, 0, tf.int64, 1)
    with pytest.raises(tf.errors.InvalidArgumentError, match=prefix + r"Field emerson in line 0 is not a valid int64\. "
                                                                      r"\[Op:"):
        build(vocab_file, tf.string, 1, tf.int64, 0)
    crlf = tmp_path / "crlf.txt"
    crlf.write_bytes(b"a\t1\r\nb\t2\r\n\r\nc\t3")
    with pytest.raises(tf.errors.InvalidArgumentError, match=prefix + r"Invalid content in .*crlf\.txt: empty line "
                                                                      r"found at position 12\. \[Op:"):
        build(str(crlf), tf.string, 0, tf.int64, 1)
    blank = tmp_path / "blank.txt"
    blank.write_bytes(b"a\nb\n\nc\n")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"empty line found at position 5\."):
        build(str(blank), tf.string, -2, tf.int64, -1)
    keys, values = build(str(blank), tf.string, -2, tf.int64, -1, vocab_size=2).export()
    assert sorted(zip(keys.numpy().tolist(), values.numpy().tolist())) == [(b"a", 0), (b"b", 1)]
    dup = tmp_path / "dup.txt"
    dup.write_text("a\t1\na\t2\n")
    with pytest.raises(tf.errors.FailedPreconditionError, match=prefix + r"HashTable has different value for same "
                                                                         r"key\. Key a has 1 and trying to add value 2"):
        build(str(dup), tf.string, 0, tf.int64, 1)
    bad = tmp_path / "bad.txt"
    bad.write_text("a\tx\n")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Field x in line 0 is not a valid int64\."):
        build(str(bad), tf.string, 0, tf.int64, 1)
    # TensorFlow shares a text-file table among tables of the same file and columns: other dtypes conflict.
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Conflicting key/value dtypes string->float with "
                                                             r"string-int64 for table hash_table_.*bad\.txt_0_1 "
                                                             r"\[Op:HashTableV2\]"):
        build(str(bad), tf.string, 0, tf.float32, 1, default=-1.0)


@pytest.mark.parametrize("args,message", [
    ((tf.string, tf.lookup.TextFileIndex.LINE_NUMBER, tf.int64, 1),
     "`key_dtype` must be int64 if `key_index` is -1, received: <dtype: 'string'>"),
    ((tf.float32, -2, tf.int64, -1), "`key_dtype` should be either integer or string for `key_index` -2, received: "
                                     "<dtype: 'float32'>"),
    ((tf.string, -3, tf.int64, -1), "`key_index` should be >= -2, received: -3."),
    ((tf.string, -2, tf.int64, -3), "`value_index` should be >= -2, received: -3"),
    ((tf.string, -2, tf.float32, -1), "`value_dtype` must be int64 for `value_index` -1, received: <dtype: 'float32'>"),
    ((tf.string, -2, tf.float32, -2), "`value_dtype` should be either integer or string for `value_index` -2, "
                                      "received: <dtype: 'float32'>"),
])
def test_text_file_initializer_argument_errors(vocab_file, args, message):
    with pytest.raises(ValueError) as info:
        tf.lookup.TextFileInitializer(vocab_file, *args)
    assert str(info.value) == message


def test_text_file_initializer_size_and_name_errors(vocab_file):
    with pytest.raises(ValueError, match=r"^`vocab_size` should be > 0, received: 0$"):
        tf.lookup.TextFileInitializer(vocab_file, tf.string, -2, tf.int64, -1, vocab_size=0)
    with pytest.raises(ValueError, match=r"^`filename` argument required for tf\.lookup\.TextFileInitializer$"):
        tf.lookup.TextFileInitializer("", tf.string, -2, tf.int64, -1)


def test_mutable_hash_table():
    m = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, default_value=-1)
    assert m.insert(tf.constant(["a", "b"]), tf.constant([1, 2], tf.int64)) is None
    assert m.lookup(tf.constant(["a", "c"])).numpy().tolist() == [1, -1] and m.size().numpy() == 2
    assert m.remove(tf.constant(["a"])) is None
    assert m.lookup(tf.constant(["a", "b"])).numpy().tolist() == [-1, 2]
    keys, values = m.export()
    assert keys.numpy().tolist() == [b"b"] and values.numpy().tolist() == [2]
    assert sorted(n for n in dir(m) if not n.startswith("_")) == [
        "export", "insert", "key_dtype", "lookup", "name", "remove", "resource_handle", "size", "value_dtype"]
    assert m.name is None
    ints = tf.lookup.experimental.MutableHashTable(tf.int64, tf.int64, -1)
    assert ints.lookup(tf.constant([1], tf.int64), dynamic_default_values=tf.constant([7], tf.int64)).numpy() == [7]
    assert ints.lookup(tf.constant([[1]], tf.int64)).numpy().tolist() == [[-1]]
    assert tf.lookup.experimental.MutableHashTable(tf.int64, tf.string, "x").lookup(
        tf.constant([1], tf.int64)).numpy().tolist() == [b"x"]


def test_mutable_hash_table_of_vectors():
    m = tf.lookup.experimental.MutableHashTable(tf.string, tf.float32, default_value=[0.0, 0.0])
    m.insert(["a"], [[1.0, 2.0]])
    out = m.lookup(["a", "z"])
    assert out.dtype == tf.float32 and out.numpy().tolist() == [[1.0, 2.0], [0.0, 0.0]]
    mv = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, [-1, -1])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Expected shape \[1,2\] for value, got \[2\] "
                                                             r"\[Op:LookupTableInsertV2\]"):
        mv.insert(tf.constant(["a"]), tf.constant([1, 2], tf.int64))
    mv.insert(tf.constant(["a"]), tf.constant([[1, 2]], tf.int64))
    assert mv.lookup(tf.constant([["a", "b"]])).numpy().tolist() == [[[1, 2], [-1, -1]]]
    keys, values = mv.export()
    assert keys.numpy().tolist() == [b"a"] and values.shape == (1, 2) and values.numpy().tolist() == [[1, 2]]
    mv.insert(tf.constant("b"), tf.constant([5, 6], tf.int64))
    assert mv.lookup(tf.constant("b")).numpy().tolist() == [5, 6]


def test_mutable_hash_table_errors():
    m = tf.lookup.experimental.MutableHashTable(tf.int64, tf.int64, -1)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Expected shape \[3\] for value, got \[2\] \[Op:"):
        m.insert(tf.constant([1, 2, 3], tf.int64), tf.constant([1, 2], tf.int64))
    with pytest.raises(ValueError, match=r"^keys: Tensor conversion requested dtype int64 for Tensor with dtype "
                                         r"int32: "):
        m.lookup(tf.constant([1], tf.int32))
    with pytest.raises(TypeError, match=r"^Dtype of argument `keys` must be <dtype: 'int64'>, received: "
                                        r"<dtype: 'int32'>$"):
        m.remove(tf.constant([1], tf.int32))
    strings = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, default_value=-1)
    with pytest.raises(ValueError, match=r"^values: Tensor conversion requested dtype int64 for Tensor with dtype "
                                         r"float32"):
        strings.insert(tf.constant(["a"]), tf.constant([1.0]))


def test_dense_hash_table():
    dh = tf.lookup.experimental.DenseHashTable(tf.int64, tf.int64, default_value=-1, empty_key=0, deleted_key=-1)
    dh.insert(tf.constant([5, 6], tf.int64), tf.constant([50, 60], tf.int64))
    assert dh.lookup(tf.constant([5, 7], tf.int64)).numpy().tolist() == [50, -1] and dh.size().numpy() == 2
    dh.erase(tf.constant([5], tf.int64))
    assert dh.lookup(tf.constant([5, 6], tf.int64)).numpy().tolist() == [-1, 60]
    assert sorted(n for n in dir(dh) if not n.startswith("_")) == [
        "erase", "export", "insert", "insert_or_assign", "key_dtype", "lookup", "name", "remove", "resource_handle",
        "size", "value_dtype"]
    strings = tf.lookup.experimental.DenseHashTable(tf.string, tf.int64, default_value=-1, empty_key="",
                                                    deleted_key="$")
    strings.insert(["p", "q"], tf.constant([3, 4], tf.int64))
    assert strings.lookup(["q", "r"]).numpy().tolist() == [4, -1] and strings.size().numpy() == 2
    assert strings.export()[0].shape == (131072, 1)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Using the empty_key as a table key is not allowed "
                                                             r"\[Op:LookupTableInsertV2\]"):
        strings.insert([""], tf.constant([1], tf.int64))


def test_dense_hash_table_buckets_and_reserved_keys():
    small = tf.lookup.experimental.DenseHashTable(tf.int64, tf.float32, default_value=-1, empty_key=0,
                                                  deleted_key=-1, initial_num_buckets=4)
    small.insert(tf.constant([5, 6, 7, 8], tf.int64), tf.constant([1, 2, 3, 4.0]))
    keys, values = small.export()
    assert keys.shape == (8, 1) and values.shape == (8, 1) and small.size().numpy() == 4
    assert sorted(k for k in keys.numpy().ravel().tolist() if k) == [5, 6, 7, 8]
    dh = tf.lookup.experimental.DenseHashTable(tf.int64, tf.int64, default_value=-1, empty_key=0, deleted_key=-1,
                                               initial_num_buckets=8)
    assert dh.export()[0].shape == (8, 1)
    dh.insert_or_assign(tf.constant([3], tf.int64), tf.constant([30], tf.int64))
    assert dh.lookup(tf.constant([3], tf.int64)).numpy().tolist() == [30]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Using the deleted_key as a table key is not allowed "
                                                             r"\[Op:LookupTableInsertV2\]"):
        dh.insert(tf.constant([-1], tf.int64), tf.constant([30], tf.int64))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Using the empty_key as a table key is not allowed "
                                                             r"\[Op:LookupTableRemoveV2\]"):
        dh.remove(tf.constant([0], tf.int64))
    assert dh.size().numpy() == 1
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Empty and deleted keys cannot be equal "
                                                             r"\[Op:MutableDenseHashTableV2\]"):
        tf.lookup.experimental.DenseHashTable(tf.int64, tf.int64, default_value=-1, empty_key=0, deleted_key=0)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Number of buckets must be at least 4 and a power of 2, "
                                                             r"got: 3 \[Op:MutableDenseHashTableV2\]"):
        tf.lookup.experimental.DenseHashTable(tf.int64, tf.int64, default_value=-1, empty_key=0, deleted_key=1,
                                              initial_num_buckets=3)


def test_tables_in_a_dataset_map():
    t = _table()
    ds = tf.data.Dataset.from_tensor_slices(["cherry", "kiwi", "apple"]).map(t.lookup)
    assert [int(x) for x in ds] == [2, -1, 0]


def test_concurrent_inserts_lose_nothing():
    import threading
    m = tf.lookup.experimental.MutableHashTable(tf.int64, tf.int64, -1)

    def worker(start):
        for i in range(start, start + 200):
            m.insert(tf.constant([i], tf.int64), tf.constant([i * 2], tf.int64))

    threads = [threading.Thread(target=worker, args=(k * 200,)) for k in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert m.size().numpy() == 800
    assert np.array_equal(m.lookup(tf.range(800, dtype=tf.int64)).numpy(), np.arange(800) * 2)


# -- checkpoints (TensorFlow's own reading and writing of them: tests/interop/test_interop_lookup_checkpoints.py)
def test_a_mutable_table_round_trips_through_a_checkpoint(tmp_path):
    table = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, default_value=-1)
    table.insert(tf.constant(["a", "b"]), tf.constant([1, 2], tf.int64))
    static = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["x"], [5]), -1)
    prefix = tf.train.Checkpoint(table=table, static=static).write(str(tmp_path / "ck"))
    assert sorted(k for k, _ in tf.train.list_variables(prefix)) == [
        "_CHECKPOINTABLE_OBJECT_GRAPH", "table/.ATTRIBUTES/table-keys", "table/.ATTRIBUTES/table-values"]
    other = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, default_value=-1)
    other.insert(tf.constant(["stale"]), tf.constant([9], tf.int64))
    tf.train.Checkpoint(table=other).read(prefix).expect_partial()
    assert other.lookup(tf.constant(["a", "b", "stale"])).numpy().tolist() == [1, 2, -1]


def test_the_object_graph_holds_tables_as_tensorflow_writes_them(tmp_path):
    from tensorflux._src.io.checkpoint.object_graph import build_object_graph
    table = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, default_value=-1)
    static = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["x"], [5]), -1)
    proto, _ = build_object_graph(tf.train.Checkpoint(table=table, static=static))
    # TensorFlow 2.21's graph for the same checkpoint: root -> static, table; static -> _initializer
    assert [[(c.local_name, c.node_id) for c in n.children] for n in proto.nodes] == [
        [("static", 1), ("table", 2)], [("_initializer", 3)], [], []]
    assert [(a.name, a.checkpoint_key) for a in proto.nodes[2].attributes] == [("table", "table/.ATTRIBUTES/table")]
    assert [n.has_checkpoint_values.value for n in proto.nodes] == [True, False, True, False]


def test_a_table_saved_without_checkpoint_leaves_no_values():
    table = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, default_value=-1, checkpoint=False)
    assert table._checkpoint_tensors() == {}


def test_a_dense_table_restores_tensorflows_bucket_arrays():
    # TensorFlow saves a DenseHashTable's buckets: [buckets, 1] keys with the empty and deleted keys in the
    # free slots, and [buckets, 1] values for scalar values; only the other keys are entries
    dense = tf.lookup.experimental.DenseHashTable(tf.int64, tf.int64, default_value=-1, empty_key=0, deleted_key=-1)
    dense.insert(tf.constant([9], tf.int64), tf.constant([90], tf.int64))
    keys = np.array([[0], [3], [-1], [5], [0], [0], [0], [0]], np.int64)
    values = np.array([[0], [30], [0], [50], [0], [0], [0], [0]], np.int64)
    dense._restore_checkpoint_tensors("table", {"-keys": keys, "-values": values})
    assert dense.lookup(tf.constant([3, 5, 9, 7], tf.int64)).numpy().tolist() == [30, 50, -1, -1]
    assert int(dense.size()) == 2
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[buckets, 1\] key array"):
        dense._restore_checkpoint_tensors("table", {"-keys": keys.reshape(-1), "-values": values})
