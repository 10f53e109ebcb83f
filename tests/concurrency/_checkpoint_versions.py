"""Checkpoints whose content says which save they came from, to detect mixed or partial restores.

Version k holds a = [k, k, k, k], b = -k and, on odd k only, an extra variable [7k, 7k, 7k]. The object
graph changes with k, so the index of one version paired with the values of another names the wrong
arrays, and a restore that mixes two versions fails the checks of `restored_version`.
"""
import numpy as np

import tensorflux as tf


class Versioned:
    """One checkpoint object whose variables are set to version k by `set(k)`."""

    def __init__(self):
        self.holder = tf.Module()
        self.extra = tf.Variable(np.zeros(3))
        self.holder.extra = []
        self.checkpoint = tf.train.Checkpoint(a=tf.Variable(np.zeros(4)), b=tf.Variable(0.0), holder=self.holder)

    def set(self, k):
        self.checkpoint.a.assign(np.full(4, float(k)))
        self.checkpoint.b.assign(-float(k))
        self.extra.assign(np.full(3, 7.0 * k))
        self.holder.extra = [self.extra] if k % 2 else []
        return self.checkpoint


def restored_version(path):
    """Restores `path` into fresh variables; returns its version k after checking it is whole."""
    target = Versioned()
    target.holder.extra = [target.extra]
    target.checkpoint.restore(path)
    k = -float(target.checkpoint.b.numpy())
    np.testing.assert_array_equal(target.checkpoint.a.numpy(), np.full(4, k), err_msg=f"a of version {k}")
    if k % 2:
        np.testing.assert_array_equal(target.extra.numpy(), np.full(3, 7.0 * k), err_msg=f"extra of {k}")
    return int(k)
