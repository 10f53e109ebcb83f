"""Image codecs: JPEG (baseline and progressive decoding), PNG, GIF and BMP, read into the exact pixels
TensorFlow's `tf.io.decode_*` ops give, and the ops themselves."""
