"""Keras layers: the `Layer` base class (`layer.py`), the input layer, and the layer families
(core, convolutional, normalization, reshaping, merging, activations, attention, recurrent, preprocessing)."""
