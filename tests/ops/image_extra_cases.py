"""tf.image calls shared by the recorder (TensorFlow 2.21) and the test (tensorflux): `cases(tf, np)`."""


def cases(tf, np):
    rgb = tf.constant(np.linspace(0.0, 1.0, 2 * 4 * 5 * 3, dtype="float32").reshape(2, 4, 5, 3) ** 1.5)
    other = tf.constant(np.cos(np.arange(2 * 4 * 5 * 3, dtype="float32")).reshape(2, 4, 5, 3) * 0.3 + 0.5)
    big1 = tf.constant((np.sin(np.arange(1 * 48 * 48 * 1, dtype="float32") / 7.0).reshape(1, 48, 48, 1) + 1) / 2)
    big2 = tf.constant((np.cos(np.arange(1 * 48 * 48 * 1, dtype="float32") / 9.0).reshape(1, 48, 48, 1) + 1) / 2)
    u8 = tf.constant(np.arange(2 * 4 * 4 * 3, dtype="uint8").reshape(2, 4, 4, 3) * 5)
    seed = (3, 7)
    c = {}
    c["rgb_to_yiq"] = lambda: tf.image.rgb_to_yiq(rgb)
    c["yiq_to_rgb"] = lambda: tf.image.yiq_to_rgb(other)
    c["rgb_to_yuv"] = lambda: tf.image.rgb_to_yuv(rgb)
    c["yuv_to_rgb"] = lambda: tf.image.yuv_to_rgb(other)
    c["adjust_gamma"] = lambda: tf.image.adjust_gamma(rgb, 2.2, 0.9)
    c["adjust_gamma_uint8"] = lambda: tf.image.adjust_gamma(u8, 0.5)
    c["sobel_edges"] = lambda: tf.image.sobel_edges(other)
    c["ssim"] = lambda: tf.image.ssim(rgb, other, 1.0, filter_size=3)
    c["ssim_default_filter"] = lambda: tf.image.ssim(big1, big2, 1.0)
    c["ssim_uint8"] = lambda: tf.image.ssim(u8, u8[::-1], 255, filter_size=3)
    c["ssim_multiscale"] = lambda: tf.image.ssim_multiscale(big1, big2, 1.0, power_factors=(0.5, 0.3, 0.2),
                                                            filter_size=5)
    c["flip_lr"] = lambda: tf.image.stateless_random_flip_left_right(rgb, seed)
    c["flip_ud_3d"] = lambda: tf.image.stateless_random_flip_up_down(rgb[0], (1, 2))
    c["brightness"] = lambda: tf.image.stateless_random_brightness(rgb, 0.2, seed)
    c["contrast"] = lambda: tf.image.stateless_random_contrast(rgb, 0.5, 1.5, seed)
    c["hue"] = lambda: tf.image.stateless_random_hue(rgb, 0.2, seed)
    c["saturation"] = lambda: tf.image.stateless_random_saturation(rgb, 0.5, 1.5, seed)
    c["crop"] = lambda: tf.image.stateless_random_crop(rgb, [1, 2, 3, 3], seed)
    boxes = tf.constant([[0.0, 0.0, 1.0, 1.0], [0.0, 0.1, 1.0, 1.1], [0.0, -0.1, 1.0, 0.9], [0.0, 10.0, 1.0, 11.0],
                         [0.0, 10.1, 1.0, 11.1], [0.0, 100.0, 1.0, 101.0]])
    scores = tf.constant([0.9, 0.75, 0.6, 0.95, 0.5, 0.3])
    c["nms"] = lambda: tf.image.non_max_suppression(boxes, scores, 3, 0.5)
    c["nms_threshold"] = lambda: tf.image.non_max_suppression(boxes, scores, 10, 0.5, score_threshold=0.55)
    c["nms_with_scores"] = lambda: tf.image.non_max_suppression_with_scores(boxes, scores, 6, 0.5, soft_nms_sigma=0.5)
    c["nms_padded"] = lambda: tf.image.non_max_suppression_padded(boxes, scores, 5, 0.5, pad_to_max_output_size=True)
    c["nms_overlaps"] = lambda: tf.image.non_max_suppression_overlaps(
        tf.constant([[1.0, 0.7, 0.2], [0.7, 1.0, 0.0], [0.2, 0.0, 1.0]]), tf.constant([0.9, 0.8, 0.7]), 3, 0.5)
    image = tf.reshape(tf.range(2 * 4 * 5 * 2, dtype=tf.float32), [2, 4, 5, 2])
    crop_boxes = tf.constant([[0.0, 0.0, 1.0, 1.0], [0.25, 0.1, 0.75, 0.9], [-0.5, 0.2, 0.5, 1.3]])
    c["crop_and_resize"] = lambda: tf.image.crop_and_resize(image, crop_boxes, [0, 1, 0], [3, 2])
    c["crop_and_resize_nearest"] = lambda: tf.image.crop_and_resize(image, crop_boxes, [1, 0, 1], [2, 4],
                                                                    method="nearest", extrapolation_value=-1.0)
    c["combined_nms"] = lambda: tf.image.combined_non_max_suppression(
        tf.reshape(boxes, [1, 6, 1, 4]), tf.stack([scores, scores[::-1]], -1)[None], 3, 4, 0.5, 0.1)
    return c
