# Run in ~/venv-tf: JPEG files (TensorFlow's encoder: grayscale, 4:2:0, 4:4:4, progressive 4:2:0 and grayscale)
# cut at 14 points from the first scan's data to the end, and TensorFlow 2.21's
# decode_jpeg(try_recover_truncated=True) of each (or its error) -> fixtures/jpeg_cuts.npz.
import os
import numpy as np, tensorflow as tf
rng = np.random.default_rng(5)
y, x = np.mgrid[0:29, 0:45]
rgb = np.stack([(x * 7) % 256, (y * 9) % 256, ((x + y) * 5) % 256], -1).astype(np.int64)
rgb = np.clip(rgb + rng.integers(-30, 30, rgb.shape), 0, 255).astype(np.uint8)
files = {"gray": tf.io.encode_jpeg(rgb[..., :1], quality=80).numpy(), "c420": tf.io.encode_jpeg(rgb, quality=80).numpy(),
         "c444": tf.io.encode_jpeg(rgb, quality=80, chroma_downsampling=False).numpy(),
         "p420": tf.io.encode_jpeg(rgb, quality=80, progressive=True).numpy(),
         "pgray": tf.io.encode_jpeg(rgb[..., :1], quality=80, progressive=True).numpy()}
out = {}
for name, data in files.items():
    out[name] = np.frombuffer(data, np.uint8)
    sos = data.index(b"\xff\xda")
    start = sos + 2 + int.from_bytes(data[sos + 2:sos + 4], "big")
    for cut in sorted(set(np.linspace(start + 1, len(data) - 3, 14).astype(int).tolist())):
        try:
            out[f"{name}_{cut}"] = tf.io.decode_jpeg(data[:cut], try_recover_truncated=True).numpy()
        except tf.errors.InvalidArgumentError:
            out[f"{name}_{cut}_error"] = np.zeros(0, np.uint8)
np.savez_compressed(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "jpeg_cuts.npz"), **out)
print({k: v.shape for k, v in out.items()})
