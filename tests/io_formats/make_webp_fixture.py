# Run in ~/venv-tf (TensorFlow 2.21 + Pillow): WebP files made with Pillow (lossless, lossy, with and without
# alpha, RGBA animations) and TensorFlow's decode_webp / decode_image pixels of them -> fixtures/webp_pixels.npz.
import io, os, numpy as np, tensorflow as tf
from PIL import Image
rng = np.random.default_rng(3)
y, x = np.mgrid[0:23, 0:37]
rgb = np.stack([(x * 7) % 256, (y * 11) % 256, ((x + y) * 5) % 256], -1).astype(np.int64)
rgb = np.clip(rgb + rng.integers(-40, 40, rgb.shape), 0, 255).astype(np.uint8)
rgba = np.concatenate([rgb, ((x * 3 + y * 5) % 256).astype(np.uint8)[..., None]], -1)
def save(image, **kw):
    b = io.BytesIO(); image.save(b, "WEBP", **kw); return b.getvalue()
files = {"lossless_rgb": save(Image.fromarray(rgb), lossless=True), "lossless_rgba": save(Image.fromarray(rgba), lossless=True),
         "lossy_rgb": save(Image.fromarray(rgb), quality=75), "lossy_rgba": save(Image.fromarray(rgba), quality=75),
         "lossy_rgb_q30": save(Image.fromarray(rgb), quality=30, method=6)}
y, x = np.mgrid[0:11, 0:14]
frames = [Image.fromarray(np.stack([(x * 17 + 40 * i) % 256, (y * 23) % 256, ((x + y) * 9 + i * 60) % 256,
                                    255 - (x * 10 + i * 30) % 200], -1).astype(np.uint8), "RGBA") for i in range(3)]
for name, kw in [("anim_rgba_lossless", {"lossless": True}), ("anim_rgba_lossy", {"quality": 80})]:
    files[name] = save(frames[0], save_all=True, append_images=frames[1:], duration=[40, 50, 60], **kw)
out = {}
for name, data in files.items():
    out[name] = np.frombuffer(data, np.uint8)
    out[name + "_webp"] = tf.io.decode_webp(data).numpy()
    out[name + "_image"] = tf.io.decode_image(data).numpy()
    out[name + "_image_still"] = tf.io.decode_image(data, expand_animations=False).numpy()
np.savez_compressed(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "webp_pixels.npz"), **out)
print({k: v.shape for k, v in out.items()})
