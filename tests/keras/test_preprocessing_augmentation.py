"""The image augmentation layers against values recorded from TensorFlow 2.21 / Keras 3.15: with a seed,
the random draws (Keras' SeedGenerator stream of stateless uniform draws) and so the outputs are
TensorFlow's. Each case runs unchanged on either library (`tf` is a parameter); EXPECTED holds what it
returned under TensorFlow (regenerate with `~/venv-tf/bin/python tests/keras/test_preprocessing_augmentation.py`).
"""
import json
import sys

import numpy as np

try:
    import pytest
except ImportError:     # regenerating EXPECTED under TensorFlow's interpreter, which lacks pytest
    pytest = None

CASES = {}
IMAGES = np.arange(2 * 4 * 5 * 2, dtype="float32").reshape(2, 4, 5, 2)


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def _values(x):
    if hasattr(x, "numpy"):
        x = x.numpy()
    if isinstance(x, np.ndarray):
        return np.round(x.astype(np.float64), 4).tolist()
    if isinstance(x, (list, tuple)):
        return [_values(v) for v in x]
    return x


@case
def flip_stream_advances(tf):
    layer = tf.keras.layers.RandomFlip(seed=7)
    return [_values(layer(IMAGES)), _values(layer(IMAGES)), _values(layer(IMAGES))]


@case
def flip_modes_single_image(tf):
    return [_values(tf.keras.layers.RandomFlip("horizontal", seed=3)(IMAGES[0])),
            _values(tf.keras.layers.RandomFlip("vertical", seed=4)(IMAGES))]


@case
def rotation_reflect_bilinear(tf):
    return _values(tf.keras.layers.RandomRotation(0.2, seed=11)(IMAGES))


@case
def rotation_constant_nearest_range(tf):
    layer = tf.keras.layers.RandomRotation((-0.3, -0.1), fill_mode="constant", interpolation="nearest",
                                           fill_value=-1.0, seed=2)
    return _values(layer(IMAGES))


@case
def zoom_height_only(tf):
    return _values(tf.keras.layers.RandomZoom(0.3, seed=5, fill_mode="constant")(IMAGES))


@case
def zoom_height_and_width_nearest(tf):
    return _values(tf.keras.layers.RandomZoom((-0.3, 0.2), (0.1, 0.4), seed=5, fill_mode="nearest")(IMAGES))


@case
def translation_constant(tf):
    return _values(tf.keras.layers.RandomTranslation(0.2, 0.3, seed=9, fill_mode="constant")(IMAGES))


@case
def contrast_and_brightness(tf):
    return [_values(tf.keras.layers.RandomContrast(0.5, seed=4)(IMAGES)),
            _values(tf.keras.layers.RandomBrightness(0.3, value_range=(0, 50), seed=4)(IMAGES))]


@case
def inference_is_identity(tf):
    images = IMAGES.astype("uint8")
    return [_values(tf.keras.layers.RandomRotation(0.2, seed=1)(images, training=False)),
            str(tf.keras.layers.RandomFlip(seed=1)(images, training=False).dtype)]


@case
def in_dataset_map_and_tf_function(tf):
    flip = tf.keras.layers.RandomFlip("horizontal", seed=2)
    ds = tf.data.Dataset.from_tensor_slices(IMAGES).batch(1).map(lambda x: flip(x))
    zoom = tf.keras.layers.RandomZoom(0.5, seed=6)
    traced = tf.function(lambda x: zoom(x))
    return [[_values(b) for b in ds], str(ds.element_spec), _values(traced(IMAGES)), _values(traced(IMAGES))]


@case
def configs(tf):
    L = tf.keras.layers
    layers = [L.RandomFlip("vertical", seed=1), L.RandomRotation(0.1), L.RandomZoom(0.2, (0.1, 0.3)),
              L.RandomTranslation((-0.1, 0.2), 0.1), L.RandomContrast(0.3), L.RandomBrightness((0.1, 0.2))]
    return [{k: v for k, v in layer.get_config().items() if k != "name"} for layer in layers]


@case
def crop_training_inference_and_small_inputs(tf):
    layer = tf.keras.layers.RandomCrop(3, 2, seed=8)
    small = tf.keras.layers.RandomCrop(6, 4, seed=8)
    return [_values(layer(IMAGES)), _values(layer(IMAGES)), _values(layer(IMAGES, training=False)),
            _values(small(IMAGES))]


RGB = (np.arange(2 * 3 * 4 * 3, dtype="float32").reshape(2, 3, 4, 3) * 7.0) % 256.0


@case
def solarization(tf):
    return [_values(tf.keras.layers.Solarization(addition_factor=0.3, threshold_factor=0.6, seed=3)(RGB)),
            _values(tf.keras.layers.Solarization(threshold_factor=(0.2, 0.4), value_range=(0, 1), seed=4)(RGB / 255.0))]


@case
def random_grayscale(tf):
    layer = tf.keras.layers.RandomGrayscale(factor=0.5, seed=12)
    return [_values(layer(RGB)), _values(layer(RGB)), _values(layer(RGB, training=False))]


@case
def auto_contrast_and_equalization(tf):
    return [_values(tf.keras.layers.AutoContrast()(RGB / 2.0)),
            _values(tf.keras.layers.AutoContrast(value_range=(0, 1))(RGB[:1] / 512.0)),
            _values(tf.keras.layers.Equalization()(RGB)),
            _values(tf.keras.layers.Equalization(bins=8, value_range=(0, 1))(RGB / 255.0))]


@case
def more_configs(tf):
    L = tf.keras.layers
    layers = [L.RandomCrop(3, 2, seed=5), L.Solarization(0.1, (0.2, 0.3), seed=2), L.RandomGrayscale(0.3),
              L.AutoContrast((0, 1)), L.Equalization(bins=16)]
    return [{k: v for k, v in layer.get_config().items() if k != "name"} for layer in layers]


@case
def random_height_and_width(tf):
    if not hasattr(tf.keras.layers, "RandomHeight"):    # tf.keras only (legacy layers), not keras 3 itself
        return None
    height = tf.keras.layers.RandomHeight(0.4, seed=3)
    width = tf.keras.layers.RandomWidth((-0.5, 0.3), interpolation="nearest", seed=4)
    return [_values(height(IMAGES)), _values(height(IMAGES)), _values(width(IMAGES)),
            _values(width(IMAGES, training=False)), height.get_config()["factor"], width.get_config()["seed"]]


@case
def invert_posterization_degeneration(tf):
    L = tf.keras.layers
    invert = L.RandomInvert(factor=0.6, seed=21)
    posterize = L.RandomPosterization(factor=(2, 6), seed=22)
    fixed = L.RandomPosterization(factor=3, value_range=(0, 1), seed=23)
    degenerate = L.RandomColorDegeneration(0.7, seed=24)
    return [_values(invert(RGB)), _values(invert(RGB)), _values(posterize(RGB)), _values(fixed(RGB / 255.0)),
            _values(degenerate(RGB)),
            [{k: v for k, v in layer.get_config().items() if k != "name"}
             for layer in (invert, posterize, fixed, degenerate)]]


@case
def saturation_hue_sharpness(tf):
    L = tf.keras.layers
    layers = [L.RandomSaturation(0.5, seed=31), L.RandomSaturation((0.6, 0.9), value_range=(0, 1), seed=32),
              L.RandomHue(0.4, seed=33), L.RandomSharpness(0.8, seed=34)]
    inputs = [RGB, RGB / 255.0, RGB, RGB]
    return [_values(layer(x)) for layer, x in zip(layers, inputs)] + \
        [[{k: v for k, v in layer.get_config().items() if k != "name"} for layer in layers]]


@case
def shear_and_gaussian_blur(tf):
    L = tf.keras.layers
    shear = L.RandomShear(x_factor=0.3, y_factor=(0.1, 0.2), fill_mode="constant", seed=41)
    blur = L.RandomGaussianBlur(factor=0.8, kernel_size=3, sigma=(0.5, 1.0), seed=42)
    return [_values(shear(IMAGES)), _values(blur(RGB)),
            [{k: v for k, v in layer.get_config().items() if k != "name"} for layer in (shear, blur)]]


@case
def erasing_and_color_jitter(tf):
    L = tf.keras.layers
    noise = L.RandomErasing(factor=0.9, scale=(0.2, 0.5), seed=51)
    flat = L.RandomErasing(factor=1.0, scale=0.4, fill_value=7.0, seed=52)
    jitter = L.RandomColorJitter(brightness_factor=0.2, contrast_factor=0.3, saturation_factor=0.4,
                                 hue_factor=0.1, seed=53)
    return [_values(noise(RGB)), _values(flat(RGB)), _values(jitter(RGB)),
            [{k: v for k, v in layer.get_config().items() if k != "name"} for layer in (noise, flat, jitter)]]


@case
def perspective(tf):
    L = tf.keras.layers
    layer = L.RandomPerspective(factor=0.9, scale=0.6, fill_value=-1.0, seed=61)
    nearest = L.RandomPerspective(scale=0.3, interpolation="nearest", seed=62)
    return [_values(layer(RGB)), _values(nearest(IMAGES)),
            [{k: v for k, v in x.get_config().items() if k != "name"} for x in (layer, nearest)]]


@case
def dict_inputs(tf):
    labels = np.array([1, 2])
    flipped = tf.keras.layers.RandomFlip(seed=7)({"images": IMAGES, "labels": labels})
    contrast = tf.keras.layers.AutoContrast()({"images": RGB, "labels": labels}, training=False)
    return [sorted(flipped), _values(flipped["images"]), _values(flipped["labels"]), str(flipped["labels"].dtype),
            _values(contrast["images"])]


def _parametrized(fn):
    return pytest.mark.parametrize("name", sorted(CASES))(fn) if pytest else fn


def _close(have, want):
    if isinstance(want, float):
        return abs(have - want) <= 2e-4 * max(1.0, abs(want))
    if isinstance(want, list):
        return isinstance(have, list) and len(have) == len(want) and all(_close(h, w) for h, w in zip(have, want))
    if isinstance(want, dict):
        return isinstance(have, dict) and list(have) == list(want) and all(_close(have[k], want[k]) for k in want)
    return have == want


@_parametrized
def test_against_keras(name):
    import tensorflux as tf
    have = json.loads(json.dumps(CASES[name](tf)))      # tuples as lists, as recorded
    assert _close(have, EXPECTED[name]), (have, EXPECTED[name])


def test_errors():
    import tensorflux as tf
    with pytest.raises(ValueError, match="rank 3"):
        tf.keras.layers.RandomFlip()(np.zeros((2, 3)))
    with pytest.raises(NotImplementedError, match="fill_mode"):
        tf.keras.layers.RandomRotation(0.1, fill_mode="mirror")
    with pytest.raises(ValueError, match="factor"):
        tf.keras.layers.RandomContrast(1.5)
    with pytest.raises(NotImplementedError, match="bounding_boxes"):
        tf.keras.layers.RandomFlip()({"images": IMAGES, "bounding_boxes": {"boxes": np.zeros((2, 1, 4))}})


# <<< EXPECTED (generated from TensorFlow 2.21 / Keras 3.15)
EXPECTED = {'auto_contrast_and_equalization': [[[[[0.0, 0.0, 0.0], [23.1818, 23.1818, 23.1818],
                                       [46.3636, 46.3636, 46.3636], [69.5455, 69.5455, 69.5455]],
                                      [[92.7273, 92.7273, 92.7273], [115.9091, 115.9091, 115.9091],
                                       [139.0909, 139.0909, 139.0909], [162.2727, 162.2727, 162.2727]],
                                      [[185.4546, 185.4545, 185.4546], [208.6364, 208.6364, 208.6364],
                                       [231.8182, 231.8182, 231.8182], [255.0, 255.0, 255.0]]],
                                     [[[255.0, 0.0, 0.0], [0.0, 23.1818, 23.1818],
                                       [22.7872, 46.3636, 46.3636], [45.5745, 69.5455, 69.5455]],
                                      [[68.3617, 92.7273, 92.7273], [91.1489, 115.9091, 115.9091],
                                       [113.9362, 139.0909, 139.0909], [136.7234, 162.2727, 162.2727]],
                                      [[159.5106, 185.4545, 185.4546], [182.2979, 208.6364, 208.6364],
                                       [205.0851, 231.8182, 231.8182], [227.8723, 255.0, 255.0]]]],
                                    [[[[0.0, 0.0, 0.0], [0.0909, 0.0909, 0.0909],
                                       [0.1818, 0.1818, 0.1818], [0.2727, 0.2727, 0.2727]],
                                      [[0.3636, 0.3636, 0.3636], [0.4545, 0.4545, 0.4545],
                                       [0.5455, 0.5455, 0.5455], [0.6364, 0.6364, 0.6364]],
                                      [[0.7273, 0.7273, 0.7273], [0.8182, 0.8182, 0.8182],
                                       [0.9091, 0.9091, 0.9091], [1.0, 1.0, 1.0]]]],
                                    [[[[0.0, 11.0, 11.0], [22.0, 33.0, 33.0], [44.0, 55.0, 55.0],
                                       [67.0, 78.0, 78.0]],
                                      [[89.0, 100.0, 100.0], [111.0, 122.0, 122.0],
                                       [133.0, 144.0, 144.0], [155.0, 166.0, 166.0]],
                                      [[177.0, 188.0, 188.0], [200.0, 211.0, 211.0],
                                       [222.0, 233.0, 233.0], [244.0, 255.0, 255.0]]],
                                     [[[255.0, 0.0, 0.0], [11.0, 22.0, 22.0], [33.0, 44.0, 44.0],
                                       [55.0, 67.0, 67.0]],
                                      [[78.0, 89.0, 89.0], [100.0, 111.0, 111.0], [122.0, 133.0, 133.0],
                                       [144.0, 155.0, 155.0]],
                                      [[166.0, 177.0, 177.0], [188.0, 200.0, 200.0],
                                       [211.0, 222.0, 222.0], [233.0, 244.0, 244.0]]]],
                                    [[[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.1922, 0.2, 0.102],
                                       [0.1922, 0.2, 0.298]],
                                      [[0.3804, 0.349, 0.298], [0.3804, 0.502, 0.502],
                                       [0.5255, 0.502, 0.502], [0.6667, 0.698, 0.698]],
                                      [[0.6667, 0.698, 0.698], [0.8588, 0.902, 0.8],
                                       [0.8588, 0.902, 1.0], [1.0, 1.0, 1.0]]],
                                     [[[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.1922, 0.2, 0.102],
                                       [0.1922, 0.2, 0.298]],
                                      [[0.3804, 0.349, 0.298], [0.3804, 0.349, 0.502],
                                       [0.5255, 0.502, 0.502], [0.5255, 0.698, 0.698]],
                                      [[0.6667, 0.698, 0.698], [0.8588, 0.902, 0.8],
                                       [0.8588, 0.902, 1.0], [1.0, 1.0, 1.0]]]]],
 'configs': [{'trainable': True,
              'dtype': {'module': 'keras',
                        'class_name': 'DTypePolicy',
                        'config': {'name': 'float32'},
                        'registered_name': None},
              'data_format': 'channels_last',
              'seed': 1,
              'mode': 'vertical'},
             {'trainable': True,
              'dtype': {'module': 'keras',
                        'class_name': 'DTypePolicy',
                        'config': {'name': 'float32'},
                        'registered_name': None},
              'data_format': 'channels_last',
              'factor': [-0.1, 0.1],
              'fill_mode': 'reflect',
              'fill_value': 0.0,
              'interpolation': 'bilinear',
              'seed': None},
             {'trainable': True,
              'dtype': {'module': 'keras',
                        'class_name': 'DTypePolicy',
                        'config': {'name': 'float32'},
                        'registered_name': None},
              'data_format': 'channels_last',
              'height_factor': 0.2,
              'width_factor': [0.1, 0.3],
              'fill_mode': 'reflect',
              'interpolation': 'bilinear',
              'seed': None,
              'fill_value': 0.0},
             {'trainable': True,
              'dtype': {'module': 'keras',
                        'class_name': 'DTypePolicy',
                        'config': {'name': 'float32'},
                        'registered_name': None},
              'data_format': 'channels_last',
              'height_factor': [-0.1, 0.2],
              'width_factor': 0.1,
              'fill_mode': 'reflect',
              'interpolation': 'bilinear',
              'seed': None,
              'fill_value': 0.0},
             {'trainable': True,
              'dtype': {'module': 'keras',
                        'class_name': 'DTypePolicy',
                        'config': {'name': 'float32'},
                        'registered_name': None},
              'data_format': 'channels_last',
              'factor': [0, 0.3],
              'value_range': [0, 255],
              'seed': None},
             {'trainable': True,
              'dtype': {'module': 'keras',
                        'class_name': 'DTypePolicy',
                        'config': {'name': 'float32'},
                        'registered_name': None},
              'data_format': 'channels_last',
              'factor': [0.1, 0.2],
              'value_range': [0, 255],
              'seed': None}],
 'contrast_and_brightness': [[[[[0.0, 0.0], [0.0, 0.0], [0.0, 0.6455], [2.2261, 3.2261],
                                [4.8067, 5.8067]],
                               [[7.3873, 8.3873], [9.9679, 10.9679], [12.5485, 13.5485],
                                [15.1291, 16.1291], [17.7097, 18.7097]],
                               [[20.2903, 21.2903], [22.8709, 23.8709], [25.4515, 26.4515],
                                [28.0321, 29.0321], [30.6127, 31.6127]],
                               [[33.1933, 34.1933], [35.7739, 36.7739], [38.3545, 39.3545],
                                [40.9351, 41.9351], [43.5157, 44.5157]]],
                              [[[31.395, 32.395], [34.3008, 35.3008], [37.2066, 38.2066],
                                [40.1124, 41.1124], [43.0182, 44.0182]],
                               [[45.924, 46.924], [48.8297, 49.8297], [51.7355, 52.7355],
                                [54.6413, 55.6413], [57.5471, 58.5471]],
                               [[60.4529, 61.4529], [63.3587, 64.3587], [66.2645, 67.2645],
                                [69.1703, 70.1703], [72.076, 73.076]],
                               [[74.9818, 75.9818], [77.8876, 78.8876], [80.7934, 81.7934],
                                [83.6992, 84.6992], [86.605, 87.605]]]],
                             [[[[2.4179, 3.4179], [4.4179, 5.4179], [6.4179, 7.4179], [8.4179, 9.4179],
                                [10.4179, 11.4179]],
                               [[12.4179, 13.4179], [14.4179, 15.4179], [16.4179, 17.4179],
                                [18.4179, 19.4179], [20.4179, 21.4179]],
                               [[22.4179, 23.4179], [24.4179, 25.4179], [26.4179, 27.4179],
                                [28.4179, 29.4179], [30.4179, 31.4179]],
                               [[32.4179, 33.4179], [34.4179, 35.4179], [36.4179, 37.4179],
                                [38.4179, 39.4179], [40.4179, 41.4179]]],
                              [[[50.0, 50.0], [50.0, 50.0], [50.0, 50.0], [50.0, 50.0], [50.0, 50.0]],
                               [[50.0, 50.0], [50.0, 50.0], [50.0, 50.0], [50.0, 50.0], [50.0, 50.0]],
                               [[50.0, 50.0], [50.0, 50.0], [50.0, 50.0], [50.0, 50.0], [50.0, 50.0]],
                               [[50.0, 50.0], [50.0, 50.0], [50.0, 50.0], [50.0, 50.0], [50.0, 50.0]]]]],
 'crop_training_inference_and_small_inputs': [[[[[10.0, 11.0], [12.0, 13.0]],
                                                [[20.0, 21.0], [22.0, 23.0]],
                                                [[30.0, 31.0], [32.0, 33.0]]],
                                               [[[50.0, 51.0], [52.0, 53.0]],
                                                [[60.0, 61.0], [62.0, 63.0]],
                                                [[70.0, 71.0], [72.0, 73.0]]]],
                                              [[[[10.0, 11.0], [12.0, 13.0]],
                                                [[20.0, 21.0], [22.0, 23.0]],
                                                [[30.0, 31.0], [32.0, 33.0]]],
                                               [[[50.0, 51.0], [52.0, 53.0]],
                                                [[60.0, 61.0], [62.0, 63.0]],
                                                [[70.0, 71.0], [72.0, 73.0]]]],
                                              [[[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0],
                                                 [8.0, 9.0]],
                                                [[10.0, 11.0], [12.0, 13.0], [14.0, 15.0], [16.0, 17.0],
                                                 [18.0, 19.0]],
                                                [[20.0, 21.0], [22.0, 23.0], [24.0, 25.0], [26.0, 27.0],
                                                 [28.0, 29.0]],
                                                [[30.0, 31.0], [32.0, 33.0], [34.0, 35.0], [36.0, 37.0],
                                                 [38.0, 39.0]]],
                                               [[[40.0, 41.0], [42.0, 43.0], [44.0, 45.0], [46.0, 47.0],
                                                 [48.0, 49.0]],
                                                [[50.0, 51.0], [52.0, 53.0], [54.0, 55.0], [56.0, 57.0],
                                                 [58.0, 59.0]],
                                                [[60.0, 61.0], [62.0, 63.0], [64.0, 65.0], [66.0, 67.0],
                                                 [68.0, 69.0]],
                                                [[70.0, 71.0], [72.0, 73.0], [74.0, 75.0], [76.0, 77.0],
                                                 [78.0, 79.0]]]],
                                              [[[[2.0, 3.0], [4.0, 5.0], [6.0, 7.0], [8.0, 9.0]],
                                                [[7.0, 8.0], [9.0, 10.0], [11.0, 12.0], [13.0, 14.0]],
                                                [[13.6667, 14.6667], [15.6667, 16.6667],
                                                 [17.6667, 18.6667], [19.6667, 20.6667]],
                                                [[20.3333, 21.3333], [22.3333, 23.3333],
                                                 [24.3333, 25.3333], [26.3333, 27.3333]],
                                                [[27.0, 28.0], [29.0, 30.0], [31.0, 32.0], [33.0, 34.0]],
                                                [[32.0, 33.0], [34.0, 35.0], [36.0, 37.0],
                                                 [38.0, 39.0]]],
                                               [[[42.0, 43.0], [44.0, 45.0], [46.0, 47.0], [48.0, 49.0]],
                                                [[47.0, 48.0], [49.0, 50.0], [51.0, 52.0], [53.0, 54.0]],
                                                [[53.6667, 54.6667], [55.6667, 56.6667],
                                                 [57.6667, 58.6667], [59.6667, 60.6667]],
                                                [[60.3333, 61.3333], [62.3333, 63.3333],
                                                 [64.3333, 65.3333], [66.3333, 67.3333]],
                                                [[67.0, 68.0], [69.0, 70.0], [71.0, 72.0], [73.0, 74.0]],
                                                [[72.0, 73.0], [74.0, 75.0], [76.0, 77.0],
                                                 [78.0, 79.0]]]]],
 'dict_inputs': [['images', 'labels'],
                 [[[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0], [8.0, 9.0]],
                   [[10.0, 11.0], [12.0, 13.0], [14.0, 15.0], [16.0, 17.0], [18.0, 19.0]],
                   [[20.0, 21.0], [22.0, 23.0], [24.0, 25.0], [26.0, 27.0], [28.0, 29.0]],
                   [[30.0, 31.0], [32.0, 33.0], [34.0, 35.0], [36.0, 37.0], [38.0, 39.0]]],
                  [[[40.0, 41.0], [42.0, 43.0], [44.0, 45.0], [46.0, 47.0], [48.0, 49.0]],
                   [[50.0, 51.0], [52.0, 53.0], [54.0, 55.0], [56.0, 57.0], [58.0, 59.0]],
                   [[60.0, 61.0], [62.0, 63.0], [64.0, 65.0], [66.0, 67.0], [68.0, 69.0]],
                   [[70.0, 71.0], [72.0, 73.0], [74.0, 75.0], [76.0, 77.0], [78.0, 79.0]]]],
                 [1.0, 2.0], "<dtype: 'int64'>",
                 [[[[0.0, 0.0, 0.0], [23.1818, 23.1818, 23.1818], [46.3636, 46.3636, 46.3636],
                    [69.5455, 69.5455, 69.5455]],
                   [[92.7273, 92.7273, 92.7273], [115.9091, 115.9091, 115.9091],
                    [139.0909, 139.0909, 139.0909], [162.2727, 162.2727, 162.2727]],
                   [[185.4546, 185.4545, 185.4546], [208.6364, 208.6364, 208.6364],
                    [231.8182, 231.8182, 231.8182], [255.0, 255.0, 255.0]]],
                  [[[255.0, 0.0, 0.0], [0.0, 23.1818, 23.1818], [22.7872, 46.3636, 46.3636],
                    [45.5745, 69.5455, 69.5455]],
                   [[68.3617, 92.7273, 92.7273], [91.1489, 115.9091, 115.9091],
                    [113.9362, 139.0909, 139.0909], [136.7234, 162.2727, 162.2727]],
                   [[159.5106, 185.4545, 185.4546], [182.2979, 208.6364, 208.6364],
                    [205.0851, 231.8182, 231.8182], [227.8723, 255.0, 255.0]]]]],
 'erasing_and_color_jitter': [[[[[0.0, 7.0, 14.0], [21.0, 28.0, 35.0], [42.0, 49.0, 56.0],
                                 [63.0, 70.0, 77.0]],
                                [[84.0, 91.0, 98.0], [4.9489, 255.0, 255.0], [255.0, 255.0, 200.2679],
                                 [147.0, 154.0, 161.0]],
                                [[168.0, 175.0, 182.0], [189.0, 196.0, 203.0], [210.0, 217.0, 224.0],
                                 [231.0, 238.0, 245.0]]],
                               [[[252.0, 3.0, 10.0], [17.0, 24.0, 31.0], [38.0, 45.0, 52.0],
                                 [59.0, 66.0, 73.0]],
                                [[80.0, 87.0, 94.0], [30.5833, 207.5857, 0.0], [0.0, 0.0, 120.5513],
                                 [143.0, 150.0, 157.0]],
                                [[164.0, 171.0, 178.0], [185.0, 192.0, 199.0], [206.0, 213.0, 220.0],
                                 [227.0, 234.0, 241.0]]]],
                              [[[[0.0, 7.0, 14.0], [21.0, 28.0, 35.0], [42.0, 49.0, 56.0],
                                 [63.0, 70.0, 77.0]],
                                [[84.0, 91.0, 98.0], [105.0, 112.0, 119.0], [126.0, 133.0, 140.0],
                                 [147.0, 154.0, 161.0]],
                                [[168.0, 175.0, 182.0], [189.0, 196.0, 203.0], [210.0, 217.0, 224.0],
                                 [231.0, 238.0, 245.0]]],
                               [[[252.0, 3.0, 10.0], [17.0, 24.0, 31.0], [38.0, 45.0, 52.0],
                                 [59.0, 66.0, 73.0]],
                                [[80.0, 87.0, 94.0], [101.0, 108.0, 115.0], [122.0, 129.0, 136.0],
                                 [143.0, 150.0, 157.0]],
                                [[164.0, 171.0, 178.0], [185.0, 192.0, 199.0], [206.0, 213.0, 220.0],
                                 [227.0, 234.0, 241.0]]]],
                              [[[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [2.2841, 2.2841, 2.2841],
                                 [28.0284, 28.0284, 28.0284]],
                                [[53.7728, 53.7728, 53.7728], [79.5171, 79.5171, 79.5171],
                                 [105.2614, 105.2614, 105.2614], [131.0057, 131.0057, 131.0057]],
                                [[156.7501, 156.7501, 156.7501], [182.4944, 182.4944, 182.4944],
                                 [208.2387, 208.2387, 208.2387], [233.983, 233.983, 233.983]]],
                               [[[236.4911, 211.8367, 207.9951], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0],
                                 [12.6902, 13.3159, 14.4288]],
                                [[38.3687, 39.4735, 40.661], [64.6009, 65.7058, 66.8933],
                                 [90.8332, 91.938, 93.1255], [117.0654, 118.1703, 119.3578]],
                                [[143.2977, 144.4025, 145.5901], [169.5299, 170.6348, 171.8223],
                                 [195.7622, 196.867, 198.0546], [221.9944, 223.0993, 224.2868]]]],
                              [{'trainable': True,
                                'dtype': {'module': 'keras',
                                          'class_name': 'DTypePolicy',
                                          'config': {'name': 'float32'},
                                          'registered_name': None},
                                'data_format': 'channels_last',
                                'factor': [0, 0.9],
                                'scale': [0.2, 0.5],
                                'fill_value': None,
                                'value_range': [0, 255],
                                'seed': 51},
                               {'trainable': True,
                                'dtype': {'module': 'keras',
                                          'class_name': 'DTypePolicy',
                                          'config': {'name': 'float32'},
                                          'registered_name': None},
                                'data_format': 'channels_last',
                                'factor': [0, 1.0],
                                'scale': [0, 0.4],
                                'fill_value': 7.0,
                                'value_range': [0, 255],
                                'seed': 52},
                               {'trainable': True,
                                'dtype': {'module': 'keras',
                                          'class_name': 'DTypePolicy',
                                          'config': {'name': 'float32'},
                                          'registered_name': None},
                                'data_format': 'channels_last',
                                'value_range': [0, 255],
                                'brightness_factor': 0.2,
                                'contrast_factor': 0.3,
                                'saturation_factor': 0.4,
                                'hue_factor': 0.1,
                                'seed': 53}]],
 'flip_modes_single_image': [[[[8.0, 9.0], [6.0, 7.0], [4.0, 5.0], [2.0, 3.0], [0.0, 1.0]],
                              [[18.0, 19.0], [16.0, 17.0], [14.0, 15.0], [12.0, 13.0], [10.0, 11.0]],
                              [[28.0, 29.0], [26.0, 27.0], [24.0, 25.0], [22.0, 23.0], [20.0, 21.0]],
                              [[38.0, 39.0], [36.0, 37.0], [34.0, 35.0], [32.0, 33.0], [30.0, 31.0]]],
                             [[[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0], [8.0, 9.0]],
                               [[10.0, 11.0], [12.0, 13.0], [14.0, 15.0], [16.0, 17.0], [18.0, 19.0]],
                               [[20.0, 21.0], [22.0, 23.0], [24.0, 25.0], [26.0, 27.0], [28.0, 29.0]],
                               [[30.0, 31.0], [32.0, 33.0], [34.0, 35.0], [36.0, 37.0], [38.0, 39.0]]],
                              [[[40.0, 41.0], [42.0, 43.0], [44.0, 45.0], [46.0, 47.0], [48.0, 49.0]],
                               [[50.0, 51.0], [52.0, 53.0], [54.0, 55.0], [56.0, 57.0], [58.0, 59.0]],
                               [[60.0, 61.0], [62.0, 63.0], [64.0, 65.0], [66.0, 67.0], [68.0, 69.0]],
                               [[70.0, 71.0], [72.0, 73.0], [74.0, 75.0], [76.0, 77.0], [78.0, 79.0]]]]],
 'flip_stream_advances': [[[[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0], [8.0, 9.0]],
                            [[10.0, 11.0], [12.0, 13.0], [14.0, 15.0], [16.0, 17.0], [18.0, 19.0]],
                            [[20.0, 21.0], [22.0, 23.0], [24.0, 25.0], [26.0, 27.0], [28.0, 29.0]],
                            [[30.0, 31.0], [32.0, 33.0], [34.0, 35.0], [36.0, 37.0], [38.0, 39.0]]],
                           [[[40.0, 41.0], [42.0, 43.0], [44.0, 45.0], [46.0, 47.0], [48.0, 49.0]],
                            [[50.0, 51.0], [52.0, 53.0], [54.0, 55.0], [56.0, 57.0], [58.0, 59.0]],
                            [[60.0, 61.0], [62.0, 63.0], [64.0, 65.0], [66.0, 67.0], [68.0, 69.0]],
                            [[70.0, 71.0], [72.0, 73.0], [74.0, 75.0], [76.0, 77.0], [78.0, 79.0]]]],
                          [[[[38.0, 39.0], [36.0, 37.0], [34.0, 35.0], [32.0, 33.0], [30.0, 31.0]],
                            [[28.0, 29.0], [26.0, 27.0], [24.0, 25.0], [22.0, 23.0], [20.0, 21.0]],
                            [[18.0, 19.0], [16.0, 17.0], [14.0, 15.0], [12.0, 13.0], [10.0, 11.0]],
                            [[8.0, 9.0], [6.0, 7.0], [4.0, 5.0], [2.0, 3.0], [0.0, 1.0]]],
                           [[[40.0, 41.0], [42.0, 43.0], [44.0, 45.0], [46.0, 47.0], [48.0, 49.0]],
                            [[50.0, 51.0], [52.0, 53.0], [54.0, 55.0], [56.0, 57.0], [58.0, 59.0]],
                            [[60.0, 61.0], [62.0, 63.0], [64.0, 65.0], [66.0, 67.0], [68.0, 69.0]],
                            [[70.0, 71.0], [72.0, 73.0], [74.0, 75.0], [76.0, 77.0], [78.0, 79.0]]]],
                          [[[[38.0, 39.0], [36.0, 37.0], [34.0, 35.0], [32.0, 33.0], [30.0, 31.0]],
                            [[28.0, 29.0], [26.0, 27.0], [24.0, 25.0], [22.0, 23.0], [20.0, 21.0]],
                            [[18.0, 19.0], [16.0, 17.0], [14.0, 15.0], [12.0, 13.0], [10.0, 11.0]],
                            [[8.0, 9.0], [6.0, 7.0], [4.0, 5.0], [2.0, 3.0], [0.0, 1.0]]],
                           [[[78.0, 79.0], [76.0, 77.0], [74.0, 75.0], [72.0, 73.0], [70.0, 71.0]],
                            [[68.0, 69.0], [66.0, 67.0], [64.0, 65.0], [62.0, 63.0], [60.0, 61.0]],
                            [[58.0, 59.0], [56.0, 57.0], [54.0, 55.0], [52.0, 53.0], [50.0, 51.0]],
                            [[48.0, 49.0], [46.0, 47.0], [44.0, 45.0], [42.0, 43.0], [40.0, 41.0]]]]],
 'in_dataset_map_and_tf_function': [[[[[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0], [8.0, 9.0]],
                                       [[10.0, 11.0], [12.0, 13.0], [14.0, 15.0], [16.0, 17.0],
                                        [18.0, 19.0]],
                                       [[20.0, 21.0], [22.0, 23.0], [24.0, 25.0], [26.0, 27.0],
                                        [28.0, 29.0]],
                                       [[30.0, 31.0], [32.0, 33.0], [34.0, 35.0], [36.0, 37.0],
                                        [38.0, 39.0]]]],
                                     [[[[48.0, 49.0], [46.0, 47.0], [44.0, 45.0], [42.0, 43.0],
                                        [40.0, 41.0]],
                                       [[58.0, 59.0], [56.0, 57.0], [54.0, 55.0], [52.0, 53.0],
                                        [50.0, 51.0]],
                                       [[68.0, 69.0], [66.0, 67.0], [64.0, 65.0], [62.0, 63.0],
                                        [60.0, 61.0]],
                                       [[78.0, 79.0], [76.0, 77.0], [74.0, 75.0], [72.0, 73.0],
                                        [70.0, 71.0]]]]],
                                    'TensorSpec(shape=(None, 4, 5, 2), dtype=tf.float32, name=None)',
                                    [[[[2.0365, 3.0365], [3.8221, 4.8221], [5.6077, 6.6077],
                                       [7.3934, 8.3934], [9.179, 10.179]],
                                      [[10.9646, 11.9646], [12.7503, 13.7503], [14.5359, 15.5359],
                                       [16.3215, 17.3215], [18.1072, 19.1072]],
                                      [[19.8928, 20.8928], [21.6785, 22.6785], [23.4641, 24.4641],
                                       [25.2497, 26.2497], [27.0354, 28.0354]],
                                      [[28.821, 29.821], [30.6066, 31.6066], [32.3923, 33.3923],
                                       [34.1779, 35.1779], [35.9635, 36.9635]]],
                                     [[[43.6858, 44.6858], [45.2978, 46.2978], [46.9098, 47.9098],
                                       [48.5219, 49.5219], [50.1339, 51.1339]],
                                      [[51.7459, 52.7459], [53.3579, 54.3579], [54.9699, 55.9699],
                                       [56.582, 57.582], [58.194, 59.194]],
                                      [[59.806, 60.806], [61.418, 62.418], [63.0301, 64.0301],
                                       [64.6421, 65.6421], [66.2541, 67.2541]],
                                      [[67.8661, 68.8661], [69.4781, 70.4781], [71.0902, 72.0902],
                                       [72.7022, 73.7022], [74.3142, 75.3142]]]],
                                    [[[[3.6605, 4.6605], [5.2751, 6.2751], [6.8898, 7.8898],
                                       [8.5045, 9.5045], [10.1192, 11.1192]],
                                      [[11.7339, 12.7339], [13.3486, 14.3486], [14.9633, 15.9633],
                                       [16.578, 17.578], [18.1927, 19.1927]],
                                      [[19.8073, 20.8073], [21.422, 22.422], [23.0367, 24.0367],
                                       [24.6514, 25.6514], [26.2661, 27.2661]],
                                      [[27.8808, 28.8808], [29.4955, 30.4955], [31.1102, 32.1102],
                                       [32.7249, 33.7249], [34.3396, 35.3395]]],
                                     [[[42.731, 43.731], [44.4436, 45.4436], [46.1561, 47.1561],
                                       [47.8686, 48.8686], [49.5811, 50.5811]],
                                      [[51.2937, 52.2937], [53.0062, 54.0062], [54.7187, 55.7187],
                                       [56.4312, 57.4312], [58.1437, 59.1437]],
                                      [[59.8563, 60.8563], [61.5688, 62.5688], [63.2813, 64.2813],
                                       [64.9938, 65.9938], [66.7063, 67.7064]],
                                      [[68.4189, 69.4189], [70.1314, 71.1314], [71.8439, 72.8439],
                                       [73.5564, 74.5564], [75.269, 76.269]]]]],
 'inference_is_identity': [[[[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0], [8.0, 9.0]],
                             [[10.0, 11.0], [12.0, 13.0], [14.0, 15.0], [16.0, 17.0], [18.0, 19.0]],
                             [[20.0, 21.0], [22.0, 23.0], [24.0, 25.0], [26.0, 27.0], [28.0, 29.0]],
                             [[30.0, 31.0], [32.0, 33.0], [34.0, 35.0], [36.0, 37.0], [38.0, 39.0]]],
                            [[[40.0, 41.0], [42.0, 43.0], [44.0, 45.0], [46.0, 47.0], [48.0, 49.0]],
                             [[50.0, 51.0], [52.0, 53.0], [54.0, 55.0], [56.0, 57.0], [58.0, 59.0]],
                             [[60.0, 61.0], [62.0, 63.0], [64.0, 65.0], [66.0, 67.0], [68.0, 69.0]],
                             [[70.0, 71.0], [72.0, 73.0], [74.0, 75.0], [76.0, 77.0], [78.0, 79.0]]]],
                           "<dtype: 'float32'>"],
 'invert_posterization_degeneration': [[[[[0.0, 7.0, 14.0], [21.0, 28.0, 35.0], [42.0, 49.0, 56.0],
                                          [63.0, 70.0, 77.0]],
                                         [[84.0, 91.0, 98.0], [105.0, 112.0, 119.0],
                                          [126.0, 133.0, 140.0], [147.0, 154.0, 161.0]],
                                         [[168.0, 175.0, 182.0], [189.0, 196.0, 203.0],
                                          [210.0, 217.0, 224.0], [231.0, 238.0, 245.0]]],
                                        [[[252.0, 3.0, 10.0], [17.0, 24.0, 31.0], [38.0, 45.0, 52.0],
                                          [59.0, 66.0, 73.0]],
                                         [[80.0, 87.0, 94.0], [101.0, 108.0, 115.0],
                                          [122.0, 129.0, 136.0], [143.0, 150.0, 157.0]],
                                         [[164.0, 171.0, 178.0], [185.0, 192.0, 199.0],
                                          [206.0, 213.0, 220.0], [227.0, 234.0, 241.0]]]],
                                       [[[[0.0, 7.0, 14.0], [21.0, 28.0, 35.0], [42.0, 49.0, 56.0],
                                          [63.0, 70.0, 77.0]],
                                         [[84.0, 91.0, 98.0], [105.0, 112.0, 119.0],
                                          [126.0, 133.0, 140.0], [147.0, 154.0, 161.0]],
                                         [[168.0, 175.0, 182.0], [189.0, 196.0, 203.0],
                                          [210.0, 217.0, 224.0], [231.0, 238.0, 245.0]]],
                                        [[[252.0, 3.0, 10.0], [17.0, 24.0, 31.0], [38.0, 45.0, 52.0],
                                          [59.0, 66.0, 73.0]],
                                         [[80.0, 87.0, 94.0], [101.0, 108.0, 115.0],
                                          [122.0, 129.0, 136.0], [143.0, 150.0, 157.0]],
                                         [[164.0, 171.0, 178.0], [185.0, 192.0, 199.0],
                                          [206.0, 213.0, 220.0], [227.0, 234.0, 241.0]]]],
                                       [[[[0.0, 0.0, 0.0], [16.0, 16.0, 32.0], [32.0, 48.0, 48.0],
                                          [48.0, 64.0, 64.0]],
                                         [[80.0, 80.0, 96.0], [96.0, 112.0, 112.0],
                                          [112.0, 128.0, 128.0], [144.0, 144.0, 160.0]],
                                         [[160.0, 160.0, 176.0], [176.0, 192.0, 192.0],
                                          [208.0, 208.0, 224.0], [224.0, 224.0, 240.0]]],
                                        [[[240.0, 0.0, 0.0], [16.0, 16.0, 16.0], [32.0, 32.0, 48.0],
                                          [48.0, 64.0, 64.0]],
                                         [[80.0, 80.0, 80.0], [96.0, 96.0, 112.0], [112.0, 128.0, 128.0],
                                          [128.0, 144.0, 144.0]],
                                         [[160.0, 160.0, 176.0], [176.0, 192.0, 192.0],
                                          [192.0, 208.0, 208.0], [224.0, 224.0, 240.0]]]],
                                       [[[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0],
                                          [0.0, 0.251, 0.251]],
                                         [[0.251, 0.251, 0.251], [0.251, 0.251, 0.251],
                                          [0.251, 0.502, 0.502], [0.502, 0.502, 0.502]],
                                         [[0.502, 0.502, 0.502], [0.502, 0.7529, 0.7529],
                                          [0.7529, 0.7529, 0.7529], [0.7529, 0.7529, 0.7529]]],
                                        [[[0.7529, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0],
                                          [0.0, 0.251, 0.251]],
                                         [[0.251, 0.251, 0.251], [0.251, 0.251, 0.251],
                                          [0.251, 0.502, 0.502], [0.502, 0.502, 0.502]],
                                         [[0.502, 0.502, 0.502], [0.502, 0.7529, 0.7529],
                                          [0.7529, 0.7529, 0.7529], [0.7529, 0.7529, 0.7529]]]],
                                       [[[[2.3482, 6.467, 10.5857], [23.3474, 27.4661, 31.5849],
                                          [44.3465, 48.4652, 52.584], [65.3456, 69.4644, 73.5831]],
                                         [[86.3448, 90.4635, 94.5823], [107.3439, 111.4626, 115.5814],
                                          [128.343, 132.4618, 136.5805],
                                          [149.3422, 153.4609, 157.5797]],
                                         [[170.3413, 174.4601, 178.5788], [191.3404, 195.4592, 199.5779],
                                          [212.3396, 216.4583, 220.5771],
                                          [233.3387, 237.4575, 241.5762]]],
                                        [[[255.0, 0.0, 0.0], [15.8159, 24.2692, 32.7225],
                                          [36.8163, 45.2697, 53.723], [57.8168, 66.2701, 74.7234]],
                                         [[78.8172, 87.2705, 95.7238], [99.8176, 108.271, 116.7243],
                                          [120.8181, 129.2714, 137.7247],
                                          [141.8185, 150.2718, 158.7252]],
                                         [[162.819, 171.2723, 179.7256], [183.8194, 192.2727, 200.726],
                                          [204.8198, 213.2731, 221.7265],
                                          [225.8203, 234.2736, 242.7269]]]],
                                       [{'trainable': True,
                                         'dtype': {'module': 'keras',
                                                   'class_name': 'DTypePolicy',
                                                   'config': {'name': 'float32'},
                                                   'registered_name': None},
                                         'data_format': 'channels_last',
                                         'factor': [0, 0.6],
                                         'value_range': [0, 255],
                                         'seed': 21},
                                        {'trainable': True,
                                         'dtype': {'module': 'keras',
                                                   'class_name': 'DTypePolicy',
                                                   'config': {'name': 'float32'},
                                                   'registered_name': None},
                                         'data_format': 'channels_last',
                                         'factor': [2, 6],
                                         'value_range': [0, 255],
                                         'seed': 22},
                                        {'trainable': True,
                                         'dtype': {'module': 'keras',
                                                   'class_name': 'DTypePolicy',
                                                   'config': {'name': 'float32'},
                                                   'registered_name': None},
                                         'data_format': 'channels_last',
                                         'factor': [1, 3],
                                         'value_range': [0, 1],
                                         'seed': 23},
                                        {'trainable': True,
                                         'dtype': {'module': 'keras',
                                                   'class_name': 'DTypePolicy',
                                                   'config': {'name': 'float32'},
                                                   'registered_name': None},
                                         'data_format': 'channels_last',
                                         'factor': [-0.7, 0.7],
                                         'value_range': [0, 255],
                                         'seed': 24}]],
 'more_configs': [{'trainable': True,
                   'dtype': {'module': 'keras',
                             'class_name': 'DTypePolicy',
                             'config': {'name': 'float32'},
                             'registered_name': None},
                   'data_format': 'channels_last',
                   'height': 3,
                   'width': 2,
                   'seed': 5},
                  {'trainable': True,
                   'dtype': {'module': 'keras',
                             'class_name': 'DTypePolicy',
                             'config': {'name': 'float32'},
                             'registered_name': None},
                   'data_format': 'channels_last',
                   'value_range': [0, 255],
                   'addition_factor': [0, 0.1],
                   'threshold_factor': [0.2, 0.3],
                   'seed': 2},
                  {'trainable': True,
                   'dtype': {'module': 'keras',
                             'class_name': 'DTypePolicy',
                             'config': {'name': 'float32'},
                             'registered_name': None},
                   'data_format': 'channels_last',
                   'factor': 0.3},
                  {'trainable': True,
                   'dtype': {'module': 'keras',
                             'class_name': 'DTypePolicy',
                             'config': {'name': 'float32'},
                             'registered_name': None},
                   'data_format': 'channels_last',
                   'value_range': [0, 1]},
                  {'trainable': True,
                   'dtype': {'module': 'keras',
                             'class_name': 'DTypePolicy',
                             'config': {'name': 'float32'},
                             'registered_name': None},
                   'data_format': 'channels_last',
                   'bins': 16,
                   'value_range': [0, 255]}],
 'perspective': [[[[[0.0, 7.0, 14.0], [15.1726, 22.1726, 29.1726], [31.2369, 38.2369, 45.2369],
                    [48.2741, 55.2741, 62.2741]],
                   [[81.9157, 88.9157, 95.9157], [101.5268, 108.5268, 115.5268],
                    [122.4334, 129.4334, 136.4333], [144.7681, 151.7681, 158.7681]],
                   [[133.0494, 138.6018, 144.1541], [133.2668, 138.258, 143.2491],
                    [130.0459, 134.4336, 138.8212], [122.5607, 126.2975, 130.0343]]],
                  [[[252.0, 3.0, 10.0], [23.975, 30.975, 37.975], [42.8367, 49.8367, 56.8367],
                    [56.4146, 63.4146, 70.4146]],
                   [[102.8596, 109.8596, 116.8596], [110.3828, 117.3828, 124.3828],
                    [115.3587, 122.3587, 129.3587], [118.8938, 125.8938, 132.8938]],
                   [[47.6235, 49.6863, 51.7491], [169.9859, 176.1, 182.2142],
                    [193.8253, 200.8253, 207.8253], [169.7809, 176.2393, 182.6977]]]],
                 [[[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0], [8.0, 9.0]],
                   [[10.0, 11.0], [12.0, 13.0], [14.0, 15.0], [16.0, 17.0], [18.0, 19.0]],
                   [[20.0, 21.0], [22.0, 23.0], [24.0, 25.0], [26.0, 27.0], [28.0, 29.0]],
                   [[30.0, 31.0], [32.0, 33.0], [34.0, 35.0], [36.0, 37.0], [38.0, 39.0]]],
                  [[[40.0, 41.0], [42.0, 43.0], [44.0, 45.0], [46.0, 47.0], [48.0, 49.0]],
                   [[50.0, 51.0], [52.0, 53.0], [54.0, 55.0], [56.0, 57.0], [58.0, 59.0]],
                   [[60.0, 61.0], [62.0, 63.0], [64.0, 65.0], [66.0, 67.0], [68.0, 69.0]],
                   [[0.0, 0.0], [72.0, 73.0], [74.0, 75.0], [76.0, 77.0], [78.0, 79.0]]]],
                 [{'trainable': True,
                   'dtype': {'module': 'keras',
                             'class_name': 'DTypePolicy',
                             'config': {'name': 'float32'},
                             'registered_name': None},
                   'data_format': 'channels_last',
                   'factor': [0, 0.9],
                   'scale': 0.6,
                   'interpolation': 'bilinear',
                   'fill_value': -1.0,
                   'seed': 61},
                  {'trainable': True,
                   'dtype': {'module': 'keras',
                             'class_name': 'DTypePolicy',
                             'config': {'name': 'float32'},
                             'registered_name': None},
                   'data_format': 'channels_last',
                   'factor': [0, 1.0],
                   'scale': 0.3,
                   'interpolation': 'nearest',
                   'fill_value': 0.0,
                   'seed': 62}]],
 'random_grayscale': [[[[[0.0, 7.0, 14.0], [21.0, 28.0, 35.0], [42.0, 49.0, 56.0], [63.0, 70.0, 77.0]],
                        [[84.0, 91.0, 98.0], [105.0, 112.0, 119.0], [126.0, 133.0, 140.0],
                         [147.0, 154.0, 161.0]],
                        [[168.0, 175.0, 182.0], [189.0, 196.0, 203.0], [210.0, 217.0, 224.0],
                         [231.0, 238.0, 245.0]]],
                       [[[78.2238, 78.2238, 78.2238], [22.7033, 22.7033, 22.7033],
                         [43.7012, 43.7012, 43.7012], [64.6991, 64.6991, 64.6991]],
                        [[85.697, 85.697, 85.697], [106.6949, 106.6949, 106.6949],
                         [127.6928, 127.6928, 127.6928], [148.6907, 148.6907, 148.6907]],
                        [[169.6886, 169.6886, 169.6886], [190.6865, 190.6865, 190.6865],
                         [211.6844, 211.6844, 211.6844], [232.6823, 232.6823, 232.6823]]]],
                      [[[[0.0, 7.0, 14.0], [21.0, 28.0, 35.0], [42.0, 49.0, 56.0], [63.0, 70.0, 77.0]],
                        [[84.0, 91.0, 98.0], [105.0, 112.0, 119.0], [126.0, 133.0, 140.0],
                         [147.0, 154.0, 161.0]],
                        [[168.0, 175.0, 182.0], [189.0, 196.0, 203.0], [210.0, 217.0, 224.0],
                         [231.0, 238.0, 245.0]]],
                       [[[78.2238, 78.2238, 78.2238], [22.7033, 22.7033, 22.7033],
                         [43.7012, 43.7012, 43.7012], [64.6991, 64.6991, 64.6991]],
                        [[85.697, 85.697, 85.697], [106.6949, 106.6949, 106.6949],
                         [127.6928, 127.6928, 127.6928], [148.6907, 148.6907, 148.6907]],
                        [[169.6886, 169.6886, 169.6886], [190.6865, 190.6865, 190.6865],
                         [211.6844, 211.6844, 211.6844], [232.6823, 232.6823, 232.6823]]]],
                      [[[[0.0, 7.0, 14.0], [21.0, 28.0, 35.0], [42.0, 49.0, 56.0], [63.0, 70.0, 77.0]],
                        [[84.0, 91.0, 98.0], [105.0, 112.0, 119.0], [126.0, 133.0, 140.0],
                         [147.0, 154.0, 161.0]],
                        [[168.0, 175.0, 182.0], [189.0, 196.0, 203.0], [210.0, 217.0, 224.0],
                         [231.0, 238.0, 245.0]]],
                       [[[252.0, 3.0, 10.0], [17.0, 24.0, 31.0], [38.0, 45.0, 52.0], [59.0, 66.0, 73.0]],
                        [[80.0, 87.0, 94.0], [101.0, 108.0, 115.0], [122.0, 129.0, 136.0],
                         [143.0, 150.0, 157.0]],
                        [[164.0, 171.0, 178.0], [185.0, 192.0, 199.0], [206.0, 213.0, 220.0],
                         [227.0, 234.0, 241.0]]]]],
 'random_height_and_width': [[[[[1.6667, 2.6667], [3.6667, 4.6667], [5.6667, 6.6667], [7.6667, 8.6667],
                                [9.6667, 10.6667]],
                               [[15.0, 16.0], [17.0, 18.0], [19.0, 20.0], [21.0, 22.0], [23.0, 24.0]],
                               [[28.3333, 29.3333], [30.3333, 31.3333], [32.3333, 33.3333],
                                [34.3333, 35.3333], [36.3333, 37.3333]]],
                              [[[41.6667, 42.6667], [43.6667, 44.6667], [45.6667, 46.6667],
                                [47.6667, 48.6667], [49.6667, 50.6667]],
                               [[55.0, 56.0], [57.0, 58.0], [59.0, 60.0], [61.0, 62.0], [63.0, 64.0]],
                               [[68.3333, 69.3333], [70.3333, 71.3333], [72.3333, 73.3333],
                                [74.3333, 75.3333], [76.3333, 77.3333]]]],
                             [[[[1.6667, 2.6667], [3.6667, 4.6667], [5.6667, 6.6667], [7.6667, 8.6667],
                                [9.6667, 10.6667]],
                               [[15.0, 16.0], [17.0, 18.0], [19.0, 20.0], [21.0, 22.0], [23.0, 24.0]],
                               [[28.3333, 29.3333], [30.3333, 31.3333], [32.3333, 33.3333],
                                [34.3333, 35.3333], [36.3333, 37.3333]]],
                              [[[41.6667, 42.6667], [43.6667, 44.6667], [45.6667, 46.6667],
                                [47.6667, 48.6667], [49.6667, 50.6667]],
                               [[55.0, 56.0], [57.0, 58.0], [59.0, 60.0], [61.0, 62.0], [63.0, 64.0]],
                               [[68.3333, 69.3333], [70.3333, 71.3333], [72.3333, 73.3333],
                                [74.3333, 75.3333], [76.3333, 77.3333]]]],
                             [[[[0.0, 1.0], [2.0, 3.0], [6.0, 7.0], [8.0, 9.0]],
                               [[10.0, 11.0], [12.0, 13.0], [16.0, 17.0], [18.0, 19.0]],
                               [[20.0, 21.0], [22.0, 23.0], [26.0, 27.0], [28.0, 29.0]],
                               [[30.0, 31.0], [32.0, 33.0], [36.0, 37.0], [38.0, 39.0]]],
                              [[[40.0, 41.0], [42.0, 43.0], [46.0, 47.0], [48.0, 49.0]],
                               [[50.0, 51.0], [52.0, 53.0], [56.0, 57.0], [58.0, 59.0]],
                               [[60.0, 61.0], [62.0, 63.0], [66.0, 67.0], [68.0, 69.0]],
                               [[70.0, 71.0], [72.0, 73.0], [76.0, 77.0], [78.0, 79.0]]]],
                             [[[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0], [8.0, 9.0]],
                               [[10.0, 11.0], [12.0, 13.0], [14.0, 15.0], [16.0, 17.0], [18.0, 19.0]],
                               [[20.0, 21.0], [22.0, 23.0], [24.0, 25.0], [26.0, 27.0], [28.0, 29.0]],
                               [[30.0, 31.0], [32.0, 33.0], [34.0, 35.0], [36.0, 37.0], [38.0, 39.0]]],
                              [[[40.0, 41.0], [42.0, 43.0], [44.0, 45.0], [46.0, 47.0], [48.0, 49.0]],
                               [[50.0, 51.0], [52.0, 53.0], [54.0, 55.0], [56.0, 57.0], [58.0, 59.0]],
                               [[60.0, 61.0], [62.0, 63.0], [64.0, 65.0], [66.0, 67.0], [68.0, 69.0]],
                               [[70.0, 71.0], [72.0, 73.0], [74.0, 75.0], [76.0, 77.0], [78.0, 79.0]]]],
                             0.4, 4],
 'rotation_constant_nearest_range': [[[[20.0, 21.0], [10.0, 11.0], [12.0, 13.0], [2.0, 3.0],
                                       [-1.0, -1.0]],
                                      [[30.0, 31.0], [22.0, 23.0], [14.0, 15.0], [4.0, 5.0], [6.0, 7.0]],
                                      [[32.0, 33.0], [34.0, 35.0], [24.0, 25.0], [16.0, 17.0],
                                       [8.0, 9.0]],
                                      [[-1.0, -1.0], [36.0, 37.0], [26.0, 27.0], [28.0, 29.0],
                                       [18.0, 19.0]]],
                                     [[[60.0, 61.0], [60.0, 61.0], [52.0, 53.0], [42.0, 43.0],
                                       [-1.0, -1.0]],
                                      [[70.0, 71.0], [62.0, 63.0], [54.0, 55.0], [44.0, 45.0],
                                       [46.0, 47.0]],
                                      [[72.0, 73.0], [74.0, 75.0], [64.0, 65.0], [56.0, 57.0],
                                       [48.0, 49.0]],
                                      [[-1.0, -1.0], [76.0, 77.0], [66.0, 67.0], [58.0, 59.0],
                                       [58.0, 59.0]]]],
 'rotation_reflect_bilinear': [[[[3.8126, 4.8126], [5.0717, 6.0717], [11.8874, 12.8874],
                                 [20.916, 21.916], [29.0956, 30.0956]],
                                [[2.2587, 3.2587], [7.6005, 8.6005], [16.6291, 17.6291],
                                 [25.6578, 26.6578], [34.6864, 35.6864]],
                                [[3.3136, 4.3136], [12.3422, 13.3422], [21.3709, 22.3709],
                                 [30.3995, 31.3995], [35.7413, 36.7413]],
                                [[8.9044, 9.9044], [17.084, 18.084], [26.1126, 27.1126],
                                 [32.9283, 33.9283], [34.1874, 35.1874]]],
                               [[[55.8351, 56.8351], [50.133, 51.133], [45.4282, 46.4282],
                                 [43.6799, 44.6799], [45.2389, 46.2389]],
                                [[63.8857, 64.8857], [59.1809, 60.1809], [54.4761, 55.476],
                                 [49.7712, 50.7712], [46.4917, 47.4917]],
                                [[71.5083, 72.5083], [68.2288, 69.2288], [63.524, 64.5239],
                                 [58.8191, 59.8191], [54.1143, 55.1143]],
                                [[72.7611, 73.7611], [74.3201, 75.3201], [72.5718, 73.5718],
                                 [67.867, 68.867], [62.1649, 63.1649]]]],
 'saturation_hue_sharpness': [[[[[12.9976, 13.4988, 14.0], [33.9976, 34.4988, 35.0],
                                 [54.9976, 55.4988, 56.0], [75.9976, 76.4988, 77.0]],
                                [[96.9976, 97.4988, 98.0], [117.9976, 118.4988, 119.0],
                                 [138.9976, 139.4988, 140.0], [159.9976, 160.4988, 161.0]],
                                [[180.9976, 181.4988, 182.0], [201.9976, 202.4988, 203.0],
                                 [222.9976, 223.4988, 224.0], [243.9976, 244.4988, 245.0]]],
                               [[[252.0, 90.4299, 94.9721], [21.9157, 26.4579, 31.0],
                                 [42.9157, 47.4579, 52.0], [63.9157, 68.4579, 73.0]],
                                [[84.9157, 89.4579, 94.0], [105.9157, 110.4579, 115.0],
                                 [126.9157, 131.4579, 136.0], [147.9157, 152.4579, 157.0]],
                                [[168.9157, 173.4579, 178.0], [189.9157, 194.4579, 199.0],
                                 [210.9157, 215.4579, 220.0], [231.9157, 236.4579, 241.0]]]],
                              [[[[0.0, 0.0275, 0.0549], [0.0, 0.0686, 0.1373], [0.0, 0.1098, 0.2196],
                                 [0.0, 0.151, 0.302]],
                                [[0.0, 0.1922, 0.3843], [0.0569, 0.2618, 0.4667],
                                 [0.1392, 0.3441, 0.549], [0.2216, 0.4265, 0.6314]],
                                [[0.3039, 0.5088, 0.7137], [0.3863, 0.5912, 0.7961],
                                 [0.4686, 0.6735, 0.8784], [0.551, 0.7559, 0.9608]]],
                               [[[0.9882, 0.0, 0.0278], [0.027, 0.0743, 0.1216],
                                 [0.1094, 0.1567, 0.2039], [0.1917, 0.239, 0.2863]],
                                [[0.2741, 0.3214, 0.3686], [0.3564, 0.4037, 0.451],
                                 [0.4388, 0.4861, 0.5333], [0.5211, 0.5684, 0.6157]],
                                [[0.6035, 0.6508, 0.698], [0.6859, 0.7331, 0.7804],
                                 [0.7682, 0.8155, 0.8627], [0.8506, 0.8978, 0.9451]]]],
                              [[[[0.0, 9.4833, 14.0], [21.0, 30.4833, 35.0], [42.0, 51.4833, 56.0],
                                 [63.0, 72.4833, 77.0]],
                                [[84.0, 93.4833, 98.0], [105.0, 114.4833, 119.0],
                                 [126.0, 135.4834, 140.0], [147.0, 156.4834, 161.0]],
                                [[168.0, 177.4833, 182.0], [189.0, 198.4834, 203.0],
                                 [210.0, 219.4833, 224.0], [231.0, 240.4834, 245.0]]],
                               [[[252.0, 62.6575, 3.0], [17.0, 20.2522, 31.0], [38.0, 41.2522, 52.0],
                                 [59.0, 62.2522, 73.0]],
                                [[80.0, 83.2522, 94.0], [101.0, 104.2522, 115.0],
                                 [122.0, 125.2522, 136.0], [143.0, 146.2522, 157.0]],
                                [[164.0, 167.2522, 178.0], [185.0, 188.2522, 199.0],
                                 [206.0, 209.2522, 220.0], [227.0, 230.2522, 241.0]]]],
                              [[[[2.6135, 9.1779, 15.7424], [23.3522, 30.0908, 36.8295],
                                 [43.5681, 50.3068, 57.0454], [60.6478, 67.2122, 73.7766]],
                                [[81.6478, 88.3865, 95.1251], [105.0, 112.0, 119.0],
                                 [126.0, 133.0, 140.0], [140.7275, 147.4662, 154.2048]],
                                [[155.9777, 162.5421, 169.1066], [178.8072, 185.5459, 192.2845],
                                 [199.0231, 205.7618, 212.5004], [214.012, 220.5764, 227.1408]]],
                               [[[255.0, 0.0, 4.3226], [0.784, 17.6129, 25.3581],
                                 [33.1033, 40.8484, 48.5936], [64.9967, 73.2387, 81.4806]],
                                [[77.1968, 94.0258, 101.7709], [91.9162, 108.0, 115.0],
                                 [122.0, 129.0, 136.0], [160.4579, 168.2031, 175.9483]],
                                [[197.5675, 205.8094, 214.0514], [213.6353, 221.3804, 229.1256],
                                 [236.8708, 244.6159, 252.3611], [255.0, 255.0, 255.0]]]],
                              [{'trainable': True,
                                'dtype': {'module': 'keras',
                                          'class_name': 'DTypePolicy',
                                          'config': {'name': 'float32'},
                                          'registered_name': None},
                                'data_format': 'channels_last',
                                'factor': [-0.5, 0.5],
                                'value_range': [0, 255],
                                'seed': 31},
                               {'trainable': True,
                                'dtype': {'module': 'keras',
                                          'class_name': 'DTypePolicy',
                                          'config': {'name': 'float32'},
                                          'registered_name': None},
                                'data_format': 'channels_last',
                                'factor': [0.6, 0.9],
                                'value_range': [0, 1],
                                'seed': 32},
                               {'trainable': True,
                                'dtype': {'module': 'keras',
                                          'class_name': 'DTypePolicy',
                                          'config': {'name': 'float32'},
                                          'registered_name': None},
                                'data_format': 'channels_last',
                                'factor': [0, 0.4],
                                'value_range': [0, 255],
                                'seed': 33},
                               {'trainable': True,
                                'dtype': {'module': 'keras',
                                          'class_name': 'DTypePolicy',
                                          'config': {'name': 'float32'},
                                          'registered_name': None},
                                'data_format': 'channels_last',
                                'factor': [0, 0.8],
                                'value_range': [0, 255],
                                'seed': 34}]],
 'shear_and_gaussian_blur': [[[[[0.0, 1.0], [3.3418, 4.3418], [6.6835, 7.6835], [10.0253, 11.0253],
                                [13.367, 14.367]],
                               [[10.2608, 11.2608], [13.6026, 14.6026], [16.9443, 17.9443],
                                [20.2861, 21.2861], [20.3199, 21.1895]],
                               [[20.5216, 21.5216], [23.8634, 24.8634], [27.2051, 28.2051],
                                [30.5469, 31.5469], [24.6646, 25.4038]],
                               [[30.7824, 31.7824], [28.3838, 29.2496], [25.4485, 26.1801],
                                [21.9765, 22.5739], [10.7179, 10.9999]]],
                              [[[40.0, 41.0], [36.8845, 37.7627], [33.2819, 34.0383], [29.1921, 29.8267],
                                [24.615, 25.1279]],
                               [[50.5312, 51.5312], [51.3132, 52.3132], [52.0953, 53.0953],
                                [52.8773, 53.8773], [39.0171, 39.7515]],
                               [[61.0624, 62.0624], [61.8444, 62.8444], [62.6265, 63.6265],
                                [63.4085, 64.4085], [29.5939, 30.0627]],
                               [[71.5936, 72.5936], [72.3757, 73.3757], [73.1577, 74.1577],
                                [73.9397, 74.9397], [14.8587, 15.0619]]]],
                             [[[[0.0, 7.0, 14.0], [21.0, 28.0, 35.0], [42.0, 49.0, 56.0],
                                [63.0, 70.0, 77.0]],
                               [[84.0, 91.0, 98.0], [105.0, 112.0, 119.0], [126.0, 133.0, 140.0],
                                [147.0, 154.0, 161.0]],
                               [[168.0, 175.0, 182.0], [189.0, 196.0, 203.0], [210.0, 217.0, 224.0],
                                [231.0, 238.0, 245.0]]],
                              [[[100.116, 13.8361, 18.3654], [78.5074, 30.6946, 36.9136],
                                [43.1325, 49.3515, 55.5704], [39.9329, 44.4623, 48.9916]],
                               [[77.013, 69.0684, 74.1666], [108.7604, 108.0, 115.0],
                                [122.0, 129.0, 136.0], [98.4428, 103.541, 108.6391]],
                               [[104.3587, 108.888, 113.4173], [154.9859, 161.2049, 167.4238],
                                [173.6428, 179.8618, 186.0807], [134.9849, 139.5142, 144.0435]]]],
                             [{'trainable': True,
                               'dtype': {'module': 'keras',
                                         'class_name': 'DTypePolicy',
                                         'config': {'name': 'float32'},
                                         'registered_name': None},
                               'data_format': 'channels_last',
                               'x_factor': [-0.3, 0.3],
                               'y_factor': [0.1, 0.2],
                               'fill_mode': 'constant',
                               'interpolation': 'bilinear',
                               'seed': 41,
                               'fill_value': 0.0},
                              {'trainable': True,
                               'dtype': {'module': 'keras',
                                         'class_name': 'DTypePolicy',
                                         'config': {'name': 'float32'},
                                         'registered_name': None},
                               'data_format': 'channels_last',
                               'factor': [0, 0.8],
                               'kernel_size': [3, 3],
                               'sigma': [0.5, 1.0],
                               'value_range': [0, 255],
                               'seed': 42}]],
 'solarization': [[[[[14.9873, 21.9873, 28.9873], [35.9873, 42.9873, 49.9873],
                     [56.9873, 63.9873, 184.0127], [177.0127, 170.0127, 163.0127]],
                    [[156.0127, 149.0127, 142.0127], [135.0127, 128.0127, 121.0127],
                     [114.0127, 107.0127, 100.0127], [93.0127, 86.0127, 79.0127]],
                    [[72.0127, 65.0127, 58.0127], [51.0127, 44.0127, 37.0127],
                     [30.0127, 23.0127, 16.0127], [9.0127, 2.0127, 0.0]]],
                   [[[0.0, 74.8599, 81.8599], [88.8599, 95.8599, 102.8599],
                     [145.1401, 138.1401, 131.1401], [124.1401, 117.1401, 110.1401]],
                    [[103.1401, 96.1401, 89.1401], [82.1401, 75.1401, 68.1401],
                     [61.1401, 54.1401, 47.1401], [40.1401, 33.1401, 26.1401]],
                    [[19.1401, 12.1401, 5.1401], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]]],
                  [[[[0.0, 0.0275, 0.0549], [0.0824, 0.1098, 0.8627], [0.8353, 0.8078, 0.7804],
                     [0.7529, 0.7255, 0.698]],
                    [[0.6706, 0.6431, 0.6157], [0.5882, 0.5608, 0.5333], [0.5059, 0.4784, 0.451],
                     [0.4235, 0.3961, 0.3686]],
                    [[0.3412, 0.3137, 0.2863], [0.2588, 0.2314, 0.2039], [0.1765, 0.149, 0.1216],
                     [0.0941, 0.0667, 0.0392]]],
                   [[[0.0118, 0.0118, 0.0392], [0.0667, 0.9059, 0.8784], [0.851, 0.8235, 0.7961],
                     [0.7686, 0.7412, 0.7137]],
                    [[0.6863, 0.6588, 0.6314], [0.6039, 0.5765, 0.549], [0.5216, 0.4941, 0.4667],
                     [0.4392, 0.4118, 0.3843]],
                    [[0.3569, 0.3294, 0.302], [0.2745, 0.2471, 0.2196], [0.1922, 0.1647, 0.1373],
                     [0.1098, 0.0824, 0.0549]]]]],
 'translation_constant': [[[[0.0, 0.0], [0.0, 0.4303], [0.8606, 1.4484], [2.0362, 2.624],
                            [3.2118, 3.7997]],
                           [[0.0, 0.0], [4.3029, 5.0349], [7.3422, 8.3422], [9.3422, 10.3422],
                            [11.3422, 12.3422]],
                           [[0.0, 0.0], [11.623, 12.355], [17.3422, 18.3422], [19.3422, 20.3422],
                            [21.3422, 22.3422]],
                           [[0.0, 0.0], [18.9431, 19.6752], [27.3422, 28.3422], [29.3422, 30.3422],
                            [31.3422, 32.3422]]],
                          [[[33.2573, 34.0433], [34.8292, 35.6152], [36.4011, 37.1871],
                            [31.8036, 32.4662], [0.0, 0.0]],
                           [[50.1736, 51.1736], [52.1736, 53.1736], [54.1736, 55.1736],
                            [47.0902, 47.9332], [0.0, 0.0]],
                           [[60.1736, 61.1736], [62.1736, 63.1736], [64.1736, 65.1736],
                            [55.5203, 56.3633], [0.0, 0.0]],
                           [[70.1736, 71.1736], [72.1736, 73.1736], [74.1736, 75.1736],
                            [63.9504, 64.7934], [0.0, 0.0]]]],
 'zoom_height_and_width_nearest': [[[[4.0361, 5.0361], [5.4667, 6.4667], [8.0361, 9.0361],
                                     [10.6055, 11.6055], [12.0361, 13.0361]],
                                    [[11.3454, 12.3454], [12.776, 13.776], [15.3454, 16.3454],
                                     [17.9148, 18.9147], [19.3454, 20.3454]],
                                    [[18.6546, 19.6546], [20.0853, 21.0852], [22.6546, 23.6546],
                                     [25.224, 26.224], [26.6546, 27.6546]],
                                    [[25.9639, 26.9639], [27.3945, 28.3945], [29.9639, 30.9639],
                                     [32.5333, 33.5333], [33.9639, 34.9639]]],
                                   [[[40.0, 41.0], [41.2294, 42.2294], [44.0, 45.0], [46.7706, 47.7706],
                                     [48.0, 49.0]],
                                    [[49.4208, 50.4208], [50.6502, 51.6502], [53.4208, 54.4208],
                                     [56.1914, 57.1914], [57.4208, 58.4208]],
                                    [[60.5792, 61.5792], [61.8086, 62.8086], [64.5792, 65.5792],
                                     [67.3498, 68.3498], [68.5792, 69.5792]],
                                    [[70.0, 71.0], [71.2294, 72.2294], [74.0, 75.0], [76.7706, 77.7706],
                                     [78.0, 79.0]]]],
 'zoom_height_only': [[[[4.9949, 5.9949], [6.4691, 7.4691], [7.9433, 8.9433], [9.4175, 10.4175],
                        [10.8918, 11.8918]],
                       [[12.366, 13.366], [13.8402, 14.8402], [15.3144, 16.3144], [16.7887, 17.7887],
                        [18.2629, 19.2629]],
                       [[19.7371, 20.7371], [21.2113, 22.2113], [22.6856, 23.6856], [24.1598, 25.1598],
                        [25.634, 26.634]],
                       [[27.1082, 28.1082], [28.5825, 29.5825], [30.0567, 31.0567], [31.5309, 32.5309],
                        [33.0051, 34.0051]]],
                      [[[16.892, 17.3143], [29.1837, 29.8852], [30.8659, 31.5674], [32.5481, 33.2496],
                        [20.2704, 20.6927]],
                       [[29.5009, 30.1029], [50.607, 51.607], [53.005, 54.005], [55.403, 56.403],
                        [34.3169, 34.9189]],
                       [[36.7188, 37.3208], [62.597, 63.597], [64.995, 65.995], [67.393, 68.393],
                        [41.5348, 42.1368]],
                       [[29.561, 29.9833], [50.2286, 50.9301], [51.9108, 52.6123], [53.593, 54.2945],
                        [32.9394, 33.3617]]]]}
# >>> EXPECTED


if __name__ == "__main__":   # regenerate EXPECTED under TensorFlow
    import tensorflow
    print(json.dumps({name: fn(tensorflow) for name, fn in sorted(CASES.items())}))
    sys.exit(0)
