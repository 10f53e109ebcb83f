"""Files: `tf.io` and `tf.io.gfile` on the local filesystem, TensorBoard event files (`tf.summary`) and
SavedModel export. Everything that reads a file treats it as data: nothing read becomes code."""
