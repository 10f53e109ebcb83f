"""`tf.distribute`: strategies (default, Mirrored, OneDevice) with one CPU replica."""
