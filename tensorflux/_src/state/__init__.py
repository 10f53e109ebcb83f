"""State that outlives a call: `tf.Variable`, `tf.Module` (tracking of variables and submodules),
and `tf.train.Checkpoint`."""
