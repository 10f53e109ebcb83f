"""Run in ~/venv-tf: TensorFlow 2.21's encode_jpeg(progressive=True) bytes for the images below (which
test_jpeg_progressive.py imports), -> fixtures/jpeg_progressive.npz."""
import os

import numpy as np

# image name, encode_jpeg keyword arguments (besides progressive=True)
CASES = {
    "noisy_rgb_q95": ("noisy_rgb", {}),
    "noisy_rgb_444": ("noisy_rgb", {"chroma_downsampling": False, "quality": 90}),
    "noisy_rgb_optimized_q50": ("noisy_rgb", {"optimize_size": True, "quality": 50}),
    "smooth_rgb_q75": ("smooth_rgb", {"quality": 75}),
    "noise_gray_q100": ("noise_gray", {"quality": 100}),
    "noise_gray_q1": ("noise_gray", {"quality": 1}),
    "odd_rgb_cm_xmp": ("odd_rgb", {"density_unit": "cm", "x_density": 72, "y_density": 96,
                                   "xmp_metadata": "<x:xmpmeta/>"}),
    "pixel_rgb": ("pixel_rgb", {}),
}


def images():
    rng = np.random.default_rng(11)
    y, x = np.mgrid[0:64, 0:80]
    noisy = np.stack([x * 3, y * 4, (x + y) * 2], -1) + rng.integers(-25, 25, (64, 80, 3))
    y, x = np.mgrid[0:160, 0:144]
    smooth = np.stack([x + y // 3, 255 - y, (x * y) // 100], -1)
    y, x = np.mgrid[0:17, 0:33]
    odd = np.stack([x * 7, y * 15, 255 - x * 5], -1)
    return {"noisy_rgb": np.clip(noisy, 0, 255).astype(np.uint8),
            "smooth_rgb": np.clip(smooth, 0, 255).astype(np.uint8),
            "noise_gray": rng.integers(0, 256, (40, 56, 1)).astype(np.uint8),
            "odd_rgb": np.clip(odd, 0, 255).astype(np.uint8),
            "pixel_rgb": np.array([[[200, 30, 90]]], np.uint8)}


if __name__ == "__main__":
    import tensorflow as tf
    out = {name: np.frombuffer(tf.io.encode_jpeg(images()[image], progressive=True, **kwargs).numpy(), np.uint8)
           for name, (image, kwargs) in CASES.items()}
    np.savez_compressed(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "jpeg_progressive.npz"),
                        **out)
    print({k: len(v) for k, v in out.items()})
