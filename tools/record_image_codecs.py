"""Records what TensorFlow 2.21 decodes from a set of JPEG and PNG files into
tests/io_formats/fixtures/image_codecs.npz (the files themselves and TensorFlow's pixels), for
tests/io_formats/test_image_codecs.py. Run it with TensorFlow's interpreter, from the repository root:

    ~/venv-tf/bin/python tools/record_image_codecs.py

The JPEG files are written by TensorFlow's own encoder (libjpeg-turbo: baseline 4:2:0 and 4:4:4,
progressive, grayscale, several qualities); the PNG files are made here byte by byte so that every colour
type, bit depth, filter, palette transparency and Adam7 interlacing occur; GIF and BMP files are written
by Pillow (installed beside TensorFlow): animated with partial, transparent frames, interlaced, and BMP
at 8, 24 and 32 bits.
"""
import io

import struct
import zlib

import numpy as np
import tensorflow as tf

OUT = "tests/io_formats/fixtures/image_codecs.npz"


def _chunk(kind, payload):
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))


def _png(width, height, depth, color_type, raw_rows, extra=b"", interlace=0):
    header = struct.pack(">IIBBBBB", width, height, depth, color_type, 0, 0, interlace)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + extra + _chunk(b"IDAT", zlib.compress(raw_rows))
            + _chunk(b"IEND", b""))


def jpeg_files(rng):
    y, x = np.mgrid[0:13, 0:19]
    smooth = np.stack([(x * 13 + y * 7) % 256, (x * x + 3 * y) % 256, (255 - x * 11 + y * y) % 256], -1)
    smooth = np.clip(smooth + rng.integers(-20, 20, smooth.shape), 0, 255).astype(np.uint8)
    noise = np.clip(rng.normal(128, 60, (37, 53, 3)), 0, 255).astype(np.uint8)
    enc = tf.io.encode_jpeg
    return {
        "q75_420": enc(smooth), "q95_444": enc(smooth, quality=95, chroma_downsampling=False),
        "q50_progressive": enc(smooth, quality=50, progressive=True), "gray": enc(smooth[..., :1]),
        "gray_progressive": enc(smooth[..., :1], progressive=True), "noise_420": enc(noise, quality=90),
        "noise_progressive": enc(noise, quality=85, progressive=True, optimize_size=True),
        "odd_444": enc(noise[:9, :11], quality=70, chroma_downsampling=False),
    }


def png_files(rng):
    img8 = rng.integers(0, 256, (5, 7, 3), dtype=np.uint8)
    img16 = rng.integers(0, 65536, (5, 7, 3), dtype=np.uint16)
    files = {
        "rgb8": tf.io.encode_png(img8), "rgb16": tf.io.encode_png(img16),
        "ga8": tf.io.encode_png(rng.integers(0, 256, (5, 7, 2), dtype=np.uint8)),
        "rgba8": tf.io.encode_png(rng.integers(0, 256, (5, 7, 4), dtype=np.uint8)),
        "gray8": tf.io.encode_png(img8[..., :1]), "gray16": tf.io.encode_png(img16[..., :1]),
        "rgb8_large": tf.io.encode_png(rng.integers(0, 256, (32, 32, 3), dtype=np.uint8)),
        "rgb16_large": tf.io.encode_png(rng.integers(0, 65536, (32, 32, 3), dtype=np.uint16)),
    }
    palette = rng.integers(0, 256, (16, 3), dtype=np.uint8)
    index = rng.integers(0, 16, (5, 7), dtype=np.uint8)
    rows = b"".join(b"\x00" + bytes([(index[r, 2 * i] << 4) | (index[r, 2 * i + 1] if 2 * i + 1 < 7 else 0)
                                     for i in range(4)]) for r in range(5))
    files["palette4"] = _png(7, 5, 4, 3, rows, _chunk(b"PLTE", palette.tobytes()))
    files["palette4_trns"] = _png(7, 5, 4, 3, rows, _chunk(b"PLTE", palette.tobytes())
                                  + _chunk(b"tRNS", bytes([0, 128, 255])))
    bits = rng.integers(0, 2, (5, 7), dtype=np.uint8)
    files["gray1"] = _png(7, 5, 1, 0, b"".join(b"\x00" + bytes([int("".join(map(str, r)) + "0", 2)]) for r in bits))
    filtered = b"".join(bytes([r % 5]) + rng.integers(0, 256, 21, dtype=np.uint8).tobytes() for r in range(10))
    files["filters_rgb8"] = _png(7, 10, 8, 2, filtered)
    filtered16 = b"".join(bytes([r % 5]) + rng.integers(0, 256, 42, dtype=np.uint8).tobytes() for r in range(10))
    files["filters_rgb16"] = _png(7, 10, 16, 2, filtered16)
    gray = rng.integers(0, 256, (10, 9), dtype=np.uint8)
    rows = b""
    for xs, ys, dx, dy in ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2),
                           (0, 1, 1, 2)):
        sub = gray[ys::dy, xs::dx]
        rows += b"".join(b"\x00" + r.tobytes() for r in sub) if sub.size else b""
    files["interlaced_gray8"] = _png(9, 10, 8, 0, rows, interlace=1)
    files["gray8_trns"] = _png(7, 5, 8, 0, b"".join(b"\x00" + r.tobytes() for r in img8[..., 0]),
                               _chunk(b"tRNS", struct.pack(">H", int(img8[0, 0, 0]))))
    return files


def gif_bmp_files(rng):
    from PIL import Image

    def save(images, fmt, **kw):
        buffer = io.BytesIO()
        images[0].save(buffer, fmt, save_all=len(images) > 1, append_images=images[1:], **kw)
        return buffer.getvalue()

    base = rng.integers(0, 256, (6, 9, 3), dtype=np.uint8)
    second = base.copy()
    second[2:4, 3:6] = [255, 0, 0]
    third = second.copy()
    third[0:2, 0:2] = [0, 0, 255]
    frames = [Image.fromarray(a).quantize(8) for a in (base, second, third)]
    big = Image.fromarray(rng.integers(0, 256, (40, 50, 3), dtype=np.uint8)).quantize(256)
    rgba = rng.integers(0, 256, (5, 7, 4), dtype=np.uint8)
    return {
        "gif/one": save(frames[:1], "GIF"), "gif/animated": save(frames, "GIF", duration=100, loop=0),
        "gif/interlaced": save([big], "GIF", interlace=True), "gif/large": save([big], "GIF", interlace=False),
        "bmp/rgb": save([Image.fromarray(rgba[..., :3], "RGB")], "BMP"),
        "bmp/rgba": save([Image.fromarray(rgba, "RGBA")], "BMP"),
        "bmp/gray": save([Image.fromarray(rgba[..., 0], "L")], "BMP"),
        "bmp/odd_width": save([Image.fromarray(rgba[:, :5, :3], "RGB")], "BMP"),
    }


def jpeg_encodings(rng):
    """(image, encode_jpeg keyword arguments, TensorFlow's bytes) for images of awkward sizes."""
    kwargs = [{}, {"quality": 50}, {"quality": 0}, {"quality": 100}, {"chroma_downsampling": False},
              {"optimize_size": True}, {"optimize_size": True, "quality": 30},
              {"density_unit": "cm", "x_density": 72, "y_density": 96}, {"xmp_metadata": "<x:xmpmeta/>"}]
    out = []
    for shape in ((3, 5, 3), (16, 16, 3), (17, 23, 3), (13, 19, 1), (40, 33, 3), (9, 7, 3), (1, 1, 3), (2, 31, 1)):
        y, x = np.mgrid[0:shape[0], 0:shape[1]]
        smooth = np.stack([(x * 13 + y * 7) % 256, (x * x + 3 * y) % 256, (255 - x * 11 + y * y) % 256], -1)
        image = np.clip(smooth[..., :shape[2]] + rng.integers(-30, 30, shape), 0, 255).astype(np.uint8)
        out.append((image, [(kw, tf.io.encode_jpeg(image, **kw).numpy()) for kw in kwargs]))
    return out


def main():
    rng = np.random.default_rng(0)
    out = {}
    for name, data in jpeg_files(rng).items():
        data = data.numpy()
        out[f"jpeg/{name}"] = np.frombuffer(data, np.uint8)
        for channels in (0, 1, 3):
            out[f"jpeg/{name}/c{channels}"] = tf.io.decode_jpeg(data, channels=channels).numpy()
        out[f"jpeg/{name}/accurate"] = tf.io.decode_jpeg(data, dct_method="INTEGER_ACCURATE").numpy()
        out[f"jpeg/{name}/accurate_c1"] = tf.io.decode_jpeg(data, channels=1, dct_method="INTEGER_ACCURATE").numpy()
        out[f"jpeg/{name}/not_fancy"] = tf.io.decode_jpeg(data, fancy_upscaling=False).numpy()
        out[f"jpeg/{name}/image_float32"] = tf.io.decode_image(data, dtype=tf.float32).numpy()
        out[f"jpeg/{name}/image_uint16"] = tf.io.decode_image(data, dtype=tf.uint16).numpy()
    for name, data in png_files(rng).items():
        data = data.numpy() if hasattr(data, "numpy") else data
        out[f"png/{name}"] = np.frombuffer(data, np.uint8)
        for channels in (0, 1, 3, 4):
            for dtype in (tf.uint8, tf.uint16):
                out[f"png/{name}/c{channels}/{dtype.name}"] = tf.io.decode_png(data, channels=channels,
                                                                                dtype=dtype).numpy()
        out[f"png/{name}/image_float32"] = tf.io.decode_image(data, dtype=tf.float32).numpy()
    for key, data in gif_bmp_files(rng).items():
        out[key] = np.frombuffer(data, np.uint8)
        out[f"{key}/image"] = tf.io.decode_image(data).numpy()
        if key.startswith("gif/"):
            out[f"{key}/gif"] = tf.io.decode_gif(data).numpy()
        else:
            for channels in (0, 3, 4):
                out[f"{key}/c{channels}"] = tf.io.decode_bmp(data, channels=channels).numpy()
    for i, (image, encodings) in enumerate(jpeg_encodings(rng)):
        out[f"encode/{i}/image"] = image
        out["encode/kwargs"] = np.array([repr(sorted(kw.items())) for kw, _ in encodings])
        for k, (kw, data) in enumerate(encodings):
            out[f"encode/{i}/{k}"] = np.frombuffer(data, np.uint8)
    photo = rng.integers(0, 256, (12, 15, 3), dtype=np.uint8)
    out["adjust/image"] = photo
    for quality in (0, 30, 75, 100):
        out[f"adjust/{quality}/uint8"] = tf.image.adjust_jpeg_quality(photo, quality).numpy()
        out[f"adjust/{quality}/float32"] = tf.image.adjust_jpeg_quality(photo.astype(np.float32) / 255.0,
                                                                        quality).numpy()
    out["adjust/gray/accurate"] = tf.image.adjust_jpeg_quality(photo[..., :1], 60, dct_method="INTEGER_ACCURATE").numpy()
    out["adjust/stateless"] = tf.image.stateless_random_jpeg_quality(photo, 20, 90, seed=(1, 2)).numpy()
    np.savez_compressed(OUT, **out)
    print(f"wrote {len(out)} arrays to {OUT}")


if __name__ == "__main__":
    main()
