# Run in ~/venv-tf: CMYK files (made with PIL), truncated JPEGs and scaled decoding (ratio 2/4/8), with
# TensorFlow 2.21's decoded pixels.
import io, numpy as np, tensorflow as tf
from PIL import Image
rng = np.random.default_rng(1)
y, x = np.mgrid[0:13, 0:19]
rgb = np.stack([(x * 13) % 256, (y * 17) % 256, ((x + y) * 9) % 256], -1).astype(np.uint8)
rgb = np.clip(rgb.astype(int) + rng.integers(-20, 20, rgb.shape), 0, 255).astype(np.uint8)
b = io.BytesIO(); Image.fromarray(rgb).convert("CMYK").save(b, "JPEG", quality=90); cmyk = b.getvalue()
i = cmyk.index(b"\xff\xee"); n = int.from_bytes(cmyk[i + 2:i + 4], "big"); plain = cmyk[:i] + cmyk[i + 2 + n:]
base = tf.io.encode_jpeg(rgb, quality=85).numpy(); prog = tf.io.encode_jpeg(rgb, quality=85, progressive=True).numpy()
out = {"cmyk": np.frombuffer(cmyk, np.uint8), "cmyk_plain": np.frombuffer(plain, np.uint8),
       "base": np.frombuffer(base, np.uint8), "prog": np.frombuffer(prog, np.uint8)}
out["cmyk_pixels"] = tf.io.decode_jpeg(cmyk).numpy(); out["cmyk_plain_pixels"] = tf.io.decode_jpeg(plain).numpy()
out["cmyk_accurate_pixels"] = tf.io.decode_jpeg(cmyk, dct_method="INTEGER_ACCURATE").numpy()
cuts = {"base": [len(base) - 2, len(base) - 9], "prog": [len(prog) - 2, len(prog) - 9]}
for k, cs in cuts.items():
    blob = out[k].tobytes()
    for c in cs:
        out[f"{k}_cut{c}"] = tf.io.decode_jpeg(blob[:c], try_recover_truncated=True, acceptable_fraction=0.5).numpy()
gray = tf.io.encode_jpeg(rgb[..., :1], quality=85).numpy(); full = tf.io.encode_jpeg(rgb, chroma_downsampling=False).numpy()
out["gray"], out["full"] = np.frombuffer(gray, np.uint8), np.frombuffer(full, np.uint8)
for ratio in (2, 4, 8):
    for name in ("base", "prog", "cmyk", "gray", "full"):
        for method in ("", "INTEGER_ACCURATE"):
            out[f"{name}_ratio{ratio}{method}"] = tf.io.decode_jpeg(out[name].tobytes(), ratio=ratio, dct_method=method).numpy()
    out[f"base_ratio{ratio}_plain_upsampling"] = tf.io.decode_jpeg(base, ratio=ratio, fancy_upscaling=False).numpy()
    out[f"base_ratio{ratio}_crop"] = tf.io.decode_and_crop_jpeg(base, [0, 1, 2, 1], ratio=ratio).numpy()
    out[f"base_ratio{ratio}_gray"] = tf.io.decode_jpeg(base, ratio=ratio, channels=1).numpy()
import os
np.savez_compressed(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "jpeg_details.npz"), **out)
print({k: v.shape for k, v in out.items()})
