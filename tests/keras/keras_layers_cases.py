"""Layer calls shared by the recorder (Keras 3.15) and the test (tensorflux): `cases(keras, np)` maps a case
name to a function returning (output, config) for a layer with deterministic weights; recorded with
`~/venv-tf/bin/python tests/keras/record_keras_layers_cases.py`."""


def cases(keras, np):
    L = keras.layers
    vol = np.arange(2 * 4 * 4 * 4 * 2, dtype="float32").reshape(2, 4, 4, 4, 2) / 50.0
    img = np.arange(2 * 5 * 6 * 4, dtype="float32").reshape(2, 5, 6, 4) / 30.0 - 1.0
    seq = np.arange(2 * 7 * 3, dtype="float32").reshape(2, 7, 3) / 10.0
    ones = keras.initializers.Constant(0.1)

    def run(layer, x, **kwargs):
        out = layer(x, **kwargs)
        config = {k: v for k, v in layer.get_config().items() if k not in ("name", "dtype", "trainable")}
        return out, config

    c = {}
    c["conv3d"] = lambda: run(L.Conv3D(3, 2, kernel_initializer=ones, bias_initializer=ones), vol)
    c["conv3d_same_stride"] = lambda: run(L.Conv3D(2, (3, 2, 2), strides=2, padding="same", kernel_initializer=ones,
                                                   use_bias=False), vol)
    c["conv3d_transpose"] = lambda: run(L.Conv3DTranspose(2, 2, strides=2, kernel_initializer=ones), vol)
    c["conv3d_transpose_same"] = lambda: run(L.Conv3DTranspose(1, 3, padding="same", kernel_initializer=ones), vol)
    c["max_pool3d"] = lambda: run(L.MaxPooling3D(2), vol)
    c["avg_pool3d_same"] = lambda: run(L.AveragePooling3D(3, strides=2, padding="same"), vol)
    c["global_max3d"] = lambda: run(L.GlobalMaxPooling3D(), vol)
    c["global_avg3d_keepdims"] = lambda: run(L.GlobalAveragePooling3D(keepdims=True), vol)
    c["upsampling3d"] = lambda: run(L.UpSampling3D((1, 2, 1)), vol[:, :2, :2, :2])
    c["zero_padding3d"] = lambda: run(L.ZeroPadding3D(((1, 0), (0, 1), (2, 0))), vol[:, :2, :2, :2])
    c["cropping3d"] = lambda: run(L.Cropping3D(((1, 0), (0, 2), (1, 1))), vol)
    c["spatial_dropout3d_inference"] = lambda: run(L.SpatialDropout3D(0.5), vol)
    c["adaptive_avg1d"] = lambda: run(L.AdaptiveAveragePooling1D(3), seq)
    c["adaptive_max1d"] = lambda: run(L.AdaptiveMaxPooling1D(4), seq)
    c["adaptive_avg2d"] = lambda: run(L.AdaptiveAveragePooling2D((2, 4)), img)
    c["adaptive_max2d"] = lambda: run(L.AdaptiveMaxPooling2D(3), img)
    c["adaptive_avg3d"] = lambda: run(L.AdaptiveAveragePooling3D((1, 2, 3)), vol)
    c["adaptive_max3d"] = lambda: run(L.AdaptiveMaxPooling3D(2), vol)
    c["group_norm"] = lambda: run(L.GroupNormalization(groups=2), img)
    c["group_norm_axis1"] = lambda: run(L.GroupNormalization(groups=5, axis=1, epsilon=0.01), img)
    c["unit_norm"] = lambda: run(L.UnitNormalization(), img)
    c["unit_norm_axes"] = lambda: run(L.UnitNormalization(axis=(1, 2)), img)
    c["rms_norm"] = lambda: run(L.RMSNormalization(), img)
    c["activity_regularization"] = lambda: run(L.ActivityRegularization(l1=0.1, l2=0.01), img)
    c["alpha_dropout_inference"] = lambda: run(L.AlphaDropout(0.3), img)
    return c
