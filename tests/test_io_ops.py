"""tf.io: read_file / write_file (eager and inside tf.function) and tf.io.gfile on local files.

The module is imported directly (it is registered as `tf.io` by `_namespaces.py`); expected values and
messages were printed by TensorFlow 2.21 for the same calls.
"""
import pytest

import tensorflux as tf
from tensorflux._src.io import gfile as io_ops
from tensorflux._src import namespaces as _namespaces

gfile = io_ops


@pytest.fixture
def files(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"l1\nl2\r\n\nl4")
    (tmp_path / "b.txt").write_bytes(b"m1\nx\ry\r\r\n")
    return tmp_path


def test_api_table_names_resolve():
    table = _namespaces.collect([io_ops])
    assert sorted(table["io"]) == ["read_file", "write_file"]
    assert {"GFile", "exists", "glob", "listdir", "makedirs"} <= set(table["io.gfile"])


def test_read_and_write_file(files):
    content = io_ops.read_file(str(files / "a.txt"))
    assert content.dtype == tf.string and content.shape == () and content.numpy() == b"l1\nl2\r\n\nl4"
    assert io_ops.write_file(str(files / "sub" / "w.txt"), "hi") is None   # parents are created
    assert io_ops.read_file(tf.constant(str(files / "sub" / "w.txt"))).numpy() == b"hi"


def test_read_and_write_file_errors(files):
    with pytest.raises(tf.errors.NotFoundError, match="nope; No such file or directory \\[Op:ReadFile\\]"):
        io_ops.read_file(str(files / "nope"))
    with pytest.raises(tf.errors.FailedPreconditionError, match="; Is a directory"):
        io_ops.read_file(str(files))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Input filename tensor must be scalar, but had shape: \\[2\\]"):
        io_ops.read_file([str(files), str(files)])
    with pytest.raises(tf.errors.FailedPreconditionError, match="a.txt/x; Not a directory"):
        io_ops.write_file(str(files / "a.txt" / "x"), "hi")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Contents tensor must be scalar, but had shape: \\[2\\]"):
        io_ops.write_file(str(files / "x"), ["a", "b"])


def test_read_and_write_file_inside_tf_function(files):
    @tf.function
    def copy(path):
        io_ops.write_file(path + ".copy", io_ops.read_file(path))

    copy(tf.constant(str(files / "b.txt")))
    read = tf.function(lambda path: io_ops.read_file(path))
    assert read(tf.constant(str(files / "b.txt.copy"))).numpy() == b"m1\nx\ry\r\r\n"


def test_gfile_directory_functions(files):
    d = str(files)
    assert gfile.exists(d) and not gfile.exists(d + "/zz") and gfile.isdir(d) and not gfile.isdir(d + "/a.txt")
    assert sorted(gfile.glob(d + "/*.txt")) == [d + "/a.txt", d + "/b.txt"] and gfile.glob(d + "/q*") == []
    gfile.makedirs(d + "/x/y")
    gfile.makedirs(d + "/x/y")   # no error when it exists
    assert gfile.isdir(d + "/x/y") and sorted(gfile.listdir(d)) == ["a.txt", "b.txt", "x"]
    with pytest.raises(tf.errors.NotFoundError, match="Could not find directory .*zz"):
        gfile.listdir(d + "/zz")
    with pytest.raises(tf.errors.FailedPreconditionError, match="a.txt is not a directory"):
        gfile.makedirs(d + "/a.txt/y")
    gfile.remove(d + "/b.txt")
    assert not gfile.exists(d + "/b.txt")
    with pytest.raises(tf.errors.NotFoundError, match="b.txt; No such file or directory"):
        gfile.remove(d + "/b.txt")


def test_gfile_reading(files):
    with gfile.GFile(str(files / "a.txt")) as f:
        assert f.read() == "l1\nl2\r\n\nl4"
    with gfile.GFile(str(files / "a.txt"), "rb") as f:   # TF 2.21: line reads drop '\r'
        assert (f.read(3), f.readline(), f.tell(), f.readlines()) == (b"l1\n", b"l2\n", 7, [b"\n", b"l4"])
    with gfile.GFile(str(files / "a.txt")) as f:
        assert list(f) == ["l1\n", "l2\n", "\n", "l4"] and f.size() == 10
    with gfile.GFile(str(files / "a.txt")) as f:
        f.seek(3)
        assert f.read(2) == "l2"


def test_gfile_writing(files):
    path = str(files / "n.txt")
    with gfile.GFile(path, "w") as f:
        f.write("x\n")
        f.write(b"y")
    with gfile.GFile(path, "a") as f:
        f.write("z")
    assert (files / "n.txt").read_bytes() == b"x\nyz"


def test_gfile_errors(files):
    missing = gfile.GFile(str(files / "nope"))   # opened on first use, as in TensorFlow
    with pytest.raises(tf.errors.NotFoundError, match="nope; No such file or directory"):
        missing.read()
    with pytest.raises(tf.errors.InvalidArgumentError, match="mode is not 'r' or 'w' or 'a'"):
        gfile.GFile(str(files / "a.txt"), "x")
    with pytest.raises(tf.errors.PermissionDeniedError, match="File isn't open for writing"):
        gfile.GFile(str(files / "a.txt")).write("q")
    with pytest.raises(tf.errors.PermissionDeniedError, match="File isn't open for reading"):
        gfile.GFile(str(files / "w.txt"), "w").read()
