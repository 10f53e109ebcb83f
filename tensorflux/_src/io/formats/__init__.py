"""TensorFlow's file formats, read and written by tensorflux's own code: protobuf messages (generated
modules under pb/, loaded lazily through protos.py), TFRecord framing, LevelDB-style sstables and tensor
bundles, all checked with CRC-32C. The SavedModel, checkpoint, tf.data and summary code goes through
here; nothing here imports protobuf until a format needs it. See README.md for the schemas' origin."""
