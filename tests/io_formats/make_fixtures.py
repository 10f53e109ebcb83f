"""Regenerates tests/io_formats/fixtures/ with real TensorFlow (run it in an environment that has it):

    ~/venv-tf/bin/python tests/io_formats/make_fixtures.py

Writes a checkpoint of variables of several dtypes, TFRecord files of raw records and of tf.train.Example
records (uncompressed, GZIP and ZLIB), a small SavedModel, the GraphDef of a traced function and an event
file with one scalar summary. The values come from fixture_values.py, which the tests read too.
"""
import glob
import os
import shutil
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixture_values  # noqa: E402  (next to this script; not a package import, so TF's env needs no setup)

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


def write_checkpoint():
    checkpoint = tf.train.Checkpoint(**{
        name: tf.Variable(value, name=name) for name, value in fixture_values.CHECKPOINT_VARIABLES.items()})
    checkpoint.write(os.path.join(HERE, "checkpoint", "ckpt"))


def _example(features):
    def feature(kind, values):
        if kind == "int64":
            return tf.train.Feature(int64_list=tf.train.Int64List(value=values))
        if kind == "float":
            return tf.train.Feature(float_list=tf.train.FloatList(value=values))
        return tf.train.Feature(bytes_list=tf.train.BytesList(value=values))
    return tf.train.Example(features=tf.train.Features(
        feature={name: feature(*spec) for name, spec in features.items()}))


def write_records():
    examples = [_example(features).SerializeToString() for features in fixture_values.EXAMPLES]
    for suffix, compression in (("", None), (".gz", "GZIP"), (".zlib", "ZLIB")):
        with tf.io.TFRecordWriter(os.path.join(HERE, "examples.tfrecord" + suffix), compression) as writer:
            for record in examples:
                writer.write(record)
    with tf.io.TFRecordWriter(os.path.join(HERE, "raw.tfrecord")) as writer:
        for record in fixture_values.RAW_RECORDS:
            writer.write(record)


class Affine(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")
        self.b = tf.Variable([0.5, -0.5], name="b")

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32, name="x")])
    def __call__(self, x):
        return {"y": tf.nn.relu(tf.matmul(x, self.w) + self.b)}


def write_saved_model_and_graph():
    module = Affine()
    tf.saved_model.save(module, os.path.join(HERE, "saved_model"))
    graph_def = module.__call__.get_concrete_function().graph.as_graph_def()
    with open(os.path.join(HERE, "affine.graphdef.pb"), "wb") as f:
        f.write(graph_def.SerializeToString())


def write_events():
    logdir = os.path.join(HERE, "logs")
    with tf.summary.create_file_writer(logdir).as_default():
        tf.summary.scalar("loss", 0.125, step=3)
    (written,) = glob.glob(os.path.join(logdir, "events.out.tfevents.*"))
    # The name carries the host and time; a fixed name keeps the fixture reproducible in git.
    os.replace(written, os.path.join(HERE, "scalar.tfevents"))
    os.rmdir(logdir)


def main():
    shutil.rmtree(HERE, ignore_errors=True)
    os.makedirs(HERE)
    np.random.seed(0)
    write_checkpoint()
    write_records()
    write_saved_model_and_graph()
    write_events()
    print("wrote", sorted(os.path.relpath(p, HERE) for p in glob.glob(os.path.join(HERE, "**"), recursive=True)))


if __name__ == "__main__":
    main()
