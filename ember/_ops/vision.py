"""Vision ops: interpolate/upsample, grid_sample, affine_grid, pixel_shuffle/unshuffle, channel_shuffle, fold/unfold (im2col/col2im).

``__all__`` lists the names ``ember.nn.functional`` re-exports."""

__all__ = []
