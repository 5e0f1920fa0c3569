"""The files of TensorBoard's embedding projector: ``tensors.tsv``, ``metadata.tsv``,
``sprite.png`` per embedding and the run's ``projector_config.pbtxt``.

Files go through TensorBoard's ``gfile`` layer, so remote log directories work as they do
for the event files.
"""
import io
import math

import numpy as np
from tensorboard.compat import tf
from tensorboard.plugins.projector.projector_config_pb2 import EmbeddingInfo

from ._convert import make_grid, make_np


def _join(a, b):
    # TensorBoard's stand-in for TensorFlow has no ``gfile.join``; real TensorFlow does.
    gfile = tf.io.gfile
    if hasattr(gfile, 'join'):
        return gfile.join(a, b)
    return gfile.get_filesystem(a).join(a, b)


def _write(path, data):
    with tf.io.gfile.GFile(path, 'wb') as f:
        f.write(data)


def tsv_bytes(metadata, metadata_header=None):
    """The content of ``metadata.tsv``: one label a line, or with ``metadata_header`` a
    header line and one tab-separated row per point."""
    if not metadata_header:
        lines = [str(x) for x in metadata]
    else:
        if len(metadata_header) != len(metadata[0]):
            raise AssertionError(
                "len of header must be equal to the number of columns in metadata")
        lines = ['\t'.join(str(e) for e in row) for row in [metadata_header] + metadata]
    return tf.compat.as_bytes('\n'.join(lines) + '\n')


def _size(x, dim):
    return x.size(dim) if callable(getattr(x, 'size', None)) else x.shape[dim]


def sprite_bytes(label_img):
    """The content of ``sprite.png``: the ``(N, C, H, W)`` label images (values in
    [0, 1]) tiled in a square grid. Needs Pillow."""
    from PIL import Image
    nrow = math.ceil(_size(label_img, 0) ** 0.5)
    grid = make_grid(make_np(label_img), ncols=nrow)          # (3, H', W')
    side = grid.shape[2]
    square = np.zeros((side, side, 3))
    hwc = grid.transpose(1, 2, 0)
    square[:hwc.shape[0], :, :] = hwc
    img = Image.fromarray(np.uint8((square * 255).clip(0, 255)))
    with io.BytesIO() as buf:
        img.save(buf, format='PNG')
        return buf.getvalue()


def mat_bytes(matlist):
    """The content of ``tensors.tsv``: one tab-separated row of values per point."""
    return tf.compat.as_bytes(''.join('\t'.join(str(v.item()) for v in row) + '\n'
                                      for row in matlist))


def write_file(save_path, name, data):
    """Write ``data`` (bytes) to ``save_path/name``."""
    _write(_join(save_path, name), data)


def get_embedding_info(metadata, label_img, subdir, global_step, tag):
    """The projector config entry of one embedding stored under ``subdir``."""
    info = EmbeddingInfo()
    info.tensor_name = f'{tag}:{str(global_step).zfill(5)}'
    info.tensor_path = _join(subdir, 'tensors.tsv')
    if metadata is not None:
        info.metadata_path = _join(subdir, 'metadata.tsv')
    if label_img is not None:
        info.sprite.image_path = _join(subdir, 'sprite.png')
        info.sprite.single_image_dim.extend([_size(label_img, 3), _size(label_img, 2)])
    return info


def write_pbtxt(save_path, contents):
    """Write the run's ``projector_config.pbtxt``."""
    _write(_join(save_path, 'projector_config.pbtxt'), tf.compat.as_bytes(contents))
