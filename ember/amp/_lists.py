"""Autocast op lists, as data: which ops run in the lower-precision dtype, which in float32,
and which in the widest floating dtype of their inputs, per device type.

The names are ember's public op names (``torch.xxx`` / ``F.xxx`` / the Tensor method), so
an op is looked up by the name the dispatcher passes. They follow PyTorch's autocast
registrations (``aten/src/ATen/autocast_mode.cpp`` and ``autocast_mode.h``): aten overload
names are folded onto the public name (``conv_transpose2d.input`` -> ``conv_transpose2d``,
``pow.Tensor_Scalar`` -> ``pow``), private kernels (``_convolution``, ``_thnn_fused_*``,
``mkldnn_rnn_layer``) are left out, and a few public aliases that reach the same aten op in
PyTorch (``__matmul__`` -> ``matmul``, ``F.cross_entropy`` -> ``cross_entropy_loss``) are
added.

Policies:

- ``LOWER``: cast floating inputs (not float64) to the autocast dtype.
- ``FP32``: cast floating inputs (not float64) to float32.
- ``FP32_SET_DTYPE``: when the first input is eligible and no ``dtype=`` is given, run with
  ``dtype=torch.float32`` (softmax, sum, cumsum...; CUDA list only).
- ``PROMOTE``: cast floating inputs to the widest of them (float32 if any is float32).
- ``BANNED``: raise (``binary_cross_entropy`` on CUDA).
"""

LOWER, FP32, FP32_SET_DTYPE, PROMOTE, BANNED = 'lower', 'fp32', 'fp32_set_dtype', 'promote', 'banned'

# ------------------------------------------------------------------------------------- CPU
CPU_LOWER = frozenset("""
    conv1d conv2d conv3d conv_tbc conv_transpose1d conv_transpose2d conv_transpose3d
    bmm mm linalg_vecdot baddbmm addmm addbmm linear matmul __matmul__ __rmatmul__
    prelu scaled_dot_product_attention
""".split())

CPU_FP32 = frozenset("""
    avg_pool3d binary_cross_entropy grid_sampler grid_sample polar prod quantile nanquantile
    stft cdist trace view_as_complex cholesky cholesky_inverse cholesky_solve inverse
    lu_solve orgqr ormqr pinverse max_pool3d max_unpool2d max_unpool3d adaptive_avg_pool3d
    reflection_pad1d reflection_pad2d replication_pad1d replication_pad2d replication_pad3d
    mse_loss cosine_embedding_loss nll_loss nll_loss2d hinge_embedding_loss poisson_nll_loss
    smooth_l1_loss cross_entropy cross_entropy_loss l1_loss huber_loss margin_ranking_loss
    soft_margin_loss triplet_margin_loss multi_margin_loss ctc_loss kl_div
    multilabel_margin_loss binary_cross_entropy_with_logits
    fft_fft fft_ifft fft_fft2 fft_ifft2 fft_fftn fft_ifftn fft_rfft fft_irfft fft_rfft2
    fft_irfft2 fft_rfftn fft_irfftn fft_hfft fft_ihfft
    linalg_cond linalg_matrix_rank linalg_solve linalg_cholesky linalg_svdvals linalg_eigvals
    linalg_eigvalsh linalg_inv linalg_householder_product linalg_tensorinv linalg_tensorsolve
    fake_quantize_per_tensor_affine geqrf qr svd triangular_solve fractional_max_pool2d
    fractional_max_pool3d adaptive_max_pool3d linalg_qr linalg_cholesky_ex linalg_svd
    linalg_eig linalg_eigh linalg_lstsq linalg_inv_ex
""".split())

CPU_PROMOTE = frozenset("stack cat concat concatenate index_copy".split())

# ------------------------------------------------------------------------------------ CUDA
CUDA_LOWER = frozenset("""
    conv1d conv2d conv3d conv_tbc conv_transpose1d conv_transpose2d conv_transpose3d
    convolution prelu addmm addmv addr matmul __matmul__ __rmatmul__ einsum mm mv
    linalg_vecdot linear addbmm baddbmm bmm chain_matmul linalg_multi_dot lstm_cell gru_cell
    rnn_tanh_cell rnn_relu_cell scaled_dot_product_attention
""".split())

CUDA_FP32 = frozenset("""
    acos asin cosh erfinv exp expm1 log log10 log2 log1p reciprocal rsqrt sinh tan pow
    __pow__ __rpow__ softplus layer_norm group_norm frobenius_norm nuclear_norm
    cosine_similarity poisson_nll_loss cosine_embedding_loss nll_loss nll_loss2d
    hinge_embedding_loss kl_div l1_loss smooth_l1_loss huber_loss mse_loss
    margin_ranking_loss multilabel_margin_loss soft_margin_loss triplet_margin_loss
    multi_margin_loss binary_cross_entropy_with_logits dist pdist cdist renorm logsumexp
    upsample_nearest1d upsample_nearest2d upsample_nearest3d upsample_linear1d
    upsample_bilinear2d upsample_trilinear3d upsample_bicubic2d
""".split())

CUDA_FP32_SET_DTYPE = frozenset("""
    prod softmax log_softmax cumprod cumsum linalg_vector_norm linalg_matrix_norm sum norm
""".split())

CUDA_PROMOTE = frozenset("""
    addcdiv addcmul atan2 bilinear cross dot vdot grid_sampler grid_sample index_put
    tensordot scatter_add
""".split())

CUDA_BANNED = frozenset(["binary_cross_entropy"])

BANNED_MESSAGE = (
    "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
    "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
    "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n"
    "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
    "safe to autocast.")


def _policies(lower, fp32, promote, set_dtype=frozenset(), banned=frozenset()):
    table = {}
    for names, pol in ((lower, LOWER), (fp32, FP32), (promote, PROMOTE),
                       (set_dtype, FP32_SET_DTYPE), (banned, BANNED)):
        for n in names:
            table[n] = pol
    return table


# device type -> {op name: policy}
POLICIES = {
    'cpu': _policies(CPU_LOWER, CPU_FP32, CPU_PROMOTE),
    'cuda': _policies(CUDA_LOWER, CUDA_FP32, CUDA_PROMOTE, CUDA_FP32_SET_DTYPE, CUDA_BANNED),
}
