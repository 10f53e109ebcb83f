"""Box ops of `tf.image`: non-max suppression (hard and soft, with scores, padded, from an overlap
matrix, and combined over classes and a batch) and `crop_and_resize`.

Each is one op with TensorFlow's type name (NonMaxSuppressionV5, NonMaxSuppressionWithOverlaps,
CombinedNonMaxSuppression, CropAndResize) and a NumPy kernel that follows TensorFlow's selection order:
candidates are taken by decreasing score, each compared with the boxes selected since it was last looked
at; soft-NMS rescales a score by exp(-0.5 · iou² / sigma) and puts the candidate back.
"""
import heapq

import numpy as np

from ...framework import errors
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..convert import convert_to_tensor
from ..registry import OpDef, apply


def _corners(boxes):
    y1, x1, y2, x2 = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
    return np.minimum(y1, y2), np.minimum(x1, x2), np.maximum(y1, y2), np.maximum(x1, x2)


def _iou_matrix(boxes):
    ymin, xmin, ymax, xmax = _corners(boxes.astype(np.float64))
    area = (ymax - ymin) * (xmax - xmin)
    inter_h = np.maximum(np.minimum(ymax[:, None], ymax[None]) - np.maximum(ymin[:, None], ymin[None]), 0.0)
    inter_w = np.maximum(np.minimum(xmax[:, None], xmax[None]) - np.maximum(xmin[:, None], xmin[None]), 0.0)
    inter = inter_h * inter_w
    union = area[:, None] + area[None] - inter
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = np.where((area[:, None] > 0) & (area[None] > 0) & (union > 0), inter / union, 0.0)
    return iou


def _select(similarity, scores, max_output, threshold, score_threshold, sigma):
    """TensorFlow's greedy selection: (indices, scores) of the kept candidates."""
    scale = -0.5 / sigma if sigma > 0 else 0.0
    heap = [(-float(s), i, 0) for i, s in enumerate(scores) if s > score_threshold]
    heapq.heapify(heap)
    selected, selected_scores = [], []
    while heap and len(selected) < max_output:
        negative, index, begin = heapq.heappop(heap)
        original = score = -negative
        hard_suppressed = False
        for j in range(len(selected) - 1, begin - 1, -1):
            sim = similarity[index, selected[j]]
            score *= np.exp(scale * sim * sim) if scale != 0 or sim <= threshold else 0.0
            if scale == 0 and sim > threshold:
                hard_suppressed = True
                break
            if score <= score_threshold:
                break
        begin = len(selected)
        if hard_suppressed:
            continue
        if score == original:
            selected.append(index)
            selected_scores.append(score)
        elif score > score_threshold:
            heapq.heappush(heap, (-score, index, begin))
    return selected, selected_scores


def _check_nms(boxes, scores, max_output):
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise errors.InvalidArgumentError(None, None, f"boxes must be 2-D with shape [num_boxes, 4], got "
                                                      f"{list(boxes.shape)}")
    if scores.ndim != 1 or scores.shape[0] != boxes.shape[0]:
        raise errors.InvalidArgumentError(None, None, f"scores has incompatible shape {list(scores.shape)} for "
                                                      f"{boxes.shape[0]} boxes")
    if int(max_output) < 0:
        raise errors.InvalidArgumentError(None, None, "max_output_size must be non-negative")


def _nms_outputs(selected, selected_scores, max_output, pad, score_dtype):
    count = len(selected)
    size = int(max_output) if pad else count
    indices = np.zeros(size, np.int32)
    values = np.zeros(size, score_dtype)
    indices[:count] = selected
    values[:count] = selected_scores
    return indices, values, np.int32(count)


def _nms_kernel(boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma,
                pad_to_max_output_size=False):
    _check_nms(boxes, scores, max_output_size)
    iou_threshold = float(iou_threshold)
    if not 0 <= iou_threshold <= 1:
        raise errors.InvalidArgumentError(None, None, "iou_threshold must be in [0, 1]")
    selected, values = _select(_iou_matrix(boxes), scores, int(max_output_size), iou_threshold,
                               float(score_threshold), float(soft_nms_sigma))
    return _nms_outputs(selected, values, max_output_size, pad_to_max_output_size, scores.dtype)


def _nms_overlaps_kernel(overlaps, scores, max_output_size, overlap_threshold, score_threshold):
    selected, _ = _select(overlaps.astype(np.float64), scores, int(max_output_size), float(overlap_threshold),
                          float(score_threshold), 0.0)
    return np.asarray(selected, np.int32)


def _infer_nms(inputs, attrs):
    size = inputs[2].shape  # a scalar; the padded length is its value, known only for constants
    length = None
    value = getattr(inputs[2], "_value", None)
    if attrs.get("pad_to_max_output_size") and value is not None:
        length = int(value)
    return [(_dt.int32, TensorShape([length])), (inputs[1].dtype, TensorShape([length])),
            (_dt.int32, TensorShape([]))]


def _infer_nms_overlaps(inputs, attrs):
    return [(_dt.int32, TensorShape([None]))]


NMS_V5 = OpDef("NonMaxSuppressionV5", _infer_nms, _nms_kernel, multi=True,
               input_names=("boxes", "scores", "max_output_size", "iou_threshold", "score_threshold",
                            "soft_nms_sigma"))
NMS_WITH_OVERLAPS = OpDef("NonMaxSuppressionWithOverlaps", _infer_nms_overlaps, _nms_overlaps_kernel,
                          input_names=("overlaps", "scores", "max_output_size", "overlap_threshold",
                                       "score_threshold"))


def _scalar(value, dtype):
    return convert_to_tensor(value, dtype) if not hasattr(value, "dtype") else value


def _nms(boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma, pad, name):
    boxes = convert_to_tensor(boxes, _dt.float32) if not hasattr(boxes, "dtype") else boxes
    scores = convert_to_tensor(scores, boxes.dtype) if not hasattr(scores, "dtype") else scores
    inputs = (boxes, scores, _scalar(max_output_size, _dt.int32), _scalar(iou_threshold, _dt.float32),
              _scalar(score_threshold, _dt.float32), _scalar(soft_nms_sigma, _dt.float32))
    return apply(NMS_V5, inputs, {"pad_to_max_output_size": pad}, name)


def non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=float("-inf"),
                        name=None):
    """Indices of the boxes kept by greedy NMS, by decreasing score (at most `max_output_size`)."""
    return _nms(boxes, scores, max_output_size, iou_threshold, score_threshold, 0.0, False,
                name or "NonMaxSuppressionV5")[0]


def non_max_suppression_with_scores(boxes, scores, max_output_size, iou_threshold=0.5,
                                    score_threshold=float("-inf"), soft_nms_sigma=0.0, name=None):
    """(indices, scores) of the kept boxes; with soft_nms_sigma > 0, overlapping boxes' scores decay
    instead of being removed (soft-NMS)."""
    indices, values, _ = _nms(boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma,
                              False, name or "NonMaxSuppressionV5")
    return indices, values


def non_max_suppression_padded(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=float("-inf"),
                               pad_to_max_output_size=False, name=None, sorted_input=False,
                               canonicalized_coordinates=False, tile_size=512):
    """(indices, valid_outputs): indices padded with zeros to `max_output_size` when asked, and how many
    are valid."""
    indices, _, valid = _nms(boxes, scores, max_output_size, iou_threshold, score_threshold, 0.0,
                             pad_to_max_output_size, name or "NonMaxSuppressionV5")
    return indices, valid


def non_max_suppression_overlaps(overlaps, scores, max_output_size, overlap_threshold=0.5,
                                 score_threshold=float("-inf"), name=None):
    """Greedy NMS where `overlaps[i, j]` says how much boxes i and j overlap."""
    overlaps = convert_to_tensor(overlaps, _dt.float32) if not hasattr(overlaps, "dtype") else overlaps
    scores = convert_to_tensor(scores, _dt.float32) if not hasattr(scores, "dtype") else scores
    inputs = (overlaps, scores, _scalar(max_output_size, _dt.int32), _scalar(overlap_threshold, _dt.float32),
              _scalar(score_threshold, _dt.float32))
    return apply(NMS_WITH_OVERLAPS, inputs, {}, name or "NonMaxSuppressionWithOverlaps")


def _combined_kernel(boxes, scores, max_output_size_per_class, max_total_size, iou_threshold, score_threshold,
                     pad_per_class=False, clip_boxes=True):
    batch, count, q, _ = boxes.shape
    classes = scores.shape[2]
    per_class, total = int(max_output_size_per_class), int(max_total_size)
    size = min(total, per_class * classes) if pad_per_class else total
    out_boxes = np.zeros((batch, size, 4), np.float32)
    out_scores = np.zeros((batch, size), np.float32)
    out_classes = np.zeros((batch, size), np.float32)
    valid = np.zeros((batch,), np.int32)
    for b in range(batch):
        found = []
        for c in range(classes):
            class_boxes = boxes[b, :, 0 if q == 1 else c, :]
            kept, kept_scores = _select(_iou_matrix(class_boxes), scores[b, :, c], per_class, float(iou_threshold),
                                        float(score_threshold), 0.0)
            found += [(s, c, i) for i, s in zip(kept, kept_scores)]
        found.sort(key=lambda item: -item[0])          # stable: equal scores keep the class order
        found = found[:size]
        for k, (s, c, i) in enumerate(found):
            box = boxes[b, i, 0 if q == 1 else c, :]
            out_boxes[b, k] = np.clip(box, 0.0, 1.0) if clip_boxes else box
            out_scores[b, k], out_classes[b, k] = s, c
        valid[b] = len(found)
    return out_boxes, out_scores, out_classes, valid


def _infer_combined(inputs, attrs):
    boxes = inputs[0]
    batch = boxes.shape[0] if boxes.shape.rank else None
    total = getattr(inputs[3], "_value", None)
    size = None if total is None else int(total)
    return [(_dt.float32, TensorShape([batch, size, 4])), (_dt.float32, TensorShape([batch, size])),
            (_dt.float32, TensorShape([batch, size])), (_dt.int32, TensorShape([batch]))]


COMBINED_NMS = OpDef("CombinedNonMaxSuppression", _infer_combined, _combined_kernel, multi=True,
                     input_names=("boxes", "scores", "max_output_size_per_class", "max_total_size",
                                  "iou_threshold", "score_threshold"))


def combined_non_max_suppression(boxes, scores, max_output_size_per_class, max_total_size, iou_threshold=0.5,
                                 score_threshold=float("-inf"), pad_per_class=False, clip_boxes=True, name=None):
    """Per-class NMS over a batch, then the best `max_total_size` detections per image:
    (nmsed_boxes, nmsed_scores, nmsed_classes, valid_detections)."""
    boxes = convert_to_tensor(boxes, _dt.float32) if not hasattr(boxes, "dtype") else boxes
    scores = convert_to_tensor(scores, _dt.float32) if not hasattr(scores, "dtype") else scores
    inputs = (boxes, scores, _scalar(max_output_size_per_class, _dt.int32), _scalar(max_total_size, _dt.int32),
              _scalar(iou_threshold, _dt.float32), _scalar(score_threshold, _dt.float32))
    return apply(COMBINED_NMS, inputs, {"pad_per_class": pad_per_class, "clip_boxes": clip_boxes},
                 name or "CombinedNonMaxSuppression")


def _crop_and_resize_kernel(image, boxes, box_ind, crop_size, method="bilinear", extrapolation_value=0.0):
    batch, height, width, depth = image.shape
    crop_h, crop_w = (int(v) for v in crop_size)
    if np.any((box_ind < 0) | (box_ind >= batch)):
        raise errors.InvalidArgumentError(None, None, f"box_index has values outside [0, {batch})")
    out = np.empty((boxes.shape[0], crop_h, crop_w, depth), np.float32)
    image = image.astype(np.float32)
    for n, ((y1, x1, y2, x2), b) in enumerate(zip(boxes.astype(np.float64), box_ind)):
        ys = (y1 * (height - 1) + np.arange(crop_h) * (y2 - y1) * (height - 1) / (crop_h - 1)) if crop_h > 1 else \
            np.array([0.5 * (y1 + y2) * (height - 1)])
        xs = (x1 * (width - 1) + np.arange(crop_w) * (x2 - x1) * (width - 1) / (crop_w - 1)) if crop_w > 1 else \
            np.array([0.5 * (x1 + x2) * (width - 1)])
        inside = ((ys >= 0) & (ys <= height - 1))[:, None] & ((xs >= 0) & (xs <= width - 1))[None, :]
        if method == "nearest":
            yi = np.clip(np.round(ys), 0, height - 1).astype(int)
            xi = np.clip(np.round(xs), 0, width - 1).astype(int)
            values = image[b][yi][:, xi]
        else:
            y0, x0 = np.floor(ys), np.floor(xs)
            wy, wx = (ys - y0)[:, None, None], (xs - x0)[None, :, None]
            y0c, y1c = np.clip(y0, 0, height - 1).astype(int), np.clip(np.ceil(ys), 0, height - 1).astype(int)
            x0c, x1c = np.clip(x0, 0, width - 1).astype(int), np.clip(np.ceil(xs), 0, width - 1).astype(int)
            img = image[b]
            top = img[y0c][:, x0c] + (img[y0c][:, x1c] - img[y0c][:, x0c]) * wx
            bottom = img[y1c][:, x0c] + (img[y1c][:, x1c] - img[y1c][:, x0c]) * wx
            values = top + (bottom - top) * wy
        out[n] = np.where(inside[:, :, None], values, np.float32(extrapolation_value))
    return out


def _infer_crop_and_resize(inputs, attrs):
    image, boxes = inputs[0], inputs[1]
    size = getattr(inputs[3], "_value", None)
    h, w = (None, None) if size is None else (int(size[0]), int(size[1]))
    depth = image.shape[3] if image.shape.rank == 4 else None
    count = boxes.shape[0] if boxes.shape.rank == 2 else None
    return [(_dt.float32, TensorShape([count, h, w, depth]))]


CROP_AND_RESIZE = OpDef("CropAndResize", _infer_crop_and_resize, _crop_and_resize_kernel,
                        input_names=("image", "boxes", "box_ind", "crop_size"))


def crop_and_resize(image, boxes, box_indices, crop_size, method="bilinear", extrapolation_value=0.0, name=None):
    """Crops of `image[box_indices[i]]` at the normalized `boxes[i]` ([y1, x1, y2, x2]), each resampled
    to `crop_size` (float32; points outside the image get `extrapolation_value`)."""
    if method not in ("bilinear", "nearest"):
        raise ValueError(f"method must be 'bilinear' or 'nearest', got {method}")
    image = convert_to_tensor(image)
    boxes = convert_to_tensor(boxes, _dt.float32) if not hasattr(boxes, "dtype") else boxes
    inputs = (image, boxes, convert_to_tensor(box_indices, _dt.int32) if not hasattr(box_indices, "dtype")
              else box_indices, convert_to_tensor(crop_size, _dt.int32))
    return apply(CROP_AND_RESIZE, inputs, {"method": method, "extrapolation_value": float(extrapolation_value)},
                 name or "CropAndResize")


API = {"image": ["non_max_suppression", "non_max_suppression_with_scores", "non_max_suppression_padded",
                 "non_max_suppression_overlaps", "combined_non_max_suppression", "crop_and_resize"]}
