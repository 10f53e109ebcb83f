"""tf.io.gfile's file-system helpers on local files, against what TensorFlow 2.21 does (recorded)."""
import os

import pytest

import tensorflux as tf

g = tf.io.gfile


def test_join_as_tensorflow():
    assert g.join("gs://x/", "y") == "gs://x/y" and g.join("a") == "a"
    assert g.join("gs://b", "/c") == "/c" and g.join("", "c") == "c"


def test_mkdir_copy_rename_stat_walk_rmtree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.txt").write_text("hi")
    g.mkdir("d")
    g.mkdir("d")                                   # an existing directory: no error
    with pytest.raises(tf.errors.NotFoundError, match="x/y; No such file or directory"):
        g.mkdir("x/y")
    g.copy("a.txt", "b.txt")
    with pytest.raises(tf.errors.AlreadyExistsError, match="file already exists"):
        g.copy("a.txt", "b.txt")
    g.copy("a.txt", "b.txt", overwrite=True)
    with pytest.raises(tf.errors.NotFoundError, match="nope; No such file or directory"):
        g.copy("nope", "c.txt")
    g.rename("b.txt", "c.txt")
    with pytest.raises(tf.errors.AlreadyExistsError):
        g.rename("a.txt", "c.txt")
    with pytest.raises(tf.errors.NotFoundError):
        g.rename("nope", "e")
    info = g.stat("a.txt")
    assert (type(info).__name__, info.length, info.is_directory, type(info.mtime_nsec)) == \
        ("FileStatistics", 2, False, int)
    with pytest.raises(tf.errors.NotFoundError):
        g.stat("nope")
    os.makedirs("d/e")
    (tmp_path / "d" / "f").write_text("x")
    walked = sorted((d, sorted(s), sorted(f)) for d, s, f in g.walk("."))
    assert walked == [(".", ["d"], ["a.txt", "c.txt"]), ("./d", ["e"], ["f"]), ("./d/e", [], [])]
    assert list(g.walk("nope")) == []
    with pytest.raises(tf.errors.NotFoundError, match="nope not found"):
        g.rmtree("nope")
    g.rmtree("d")
    assert not os.path.exists("d")
    assert set(g.get_registered_schemes()) >= {"", "file"}
