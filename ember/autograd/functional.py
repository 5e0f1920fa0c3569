"""Higher-level differentiation of functions: ``jacobian``, ``hessian``, ``vjp``, ``jvp``,
``hvp``, ``vhp`` (built on :func:`ember.autograd.grad`)."""
from .grad_mode import enable_grad

__all__ = ['vjp', 'jvp', 'jacobian', 'hessian', 'hvp', 'vhp']


def _is_tensor(x):
    from .._tensor import Tensor
    return isinstance(x, Tensor)


def _as_tuple(inp, arg_name, fn_name):
    """(is_tuple, tuple of tensors) with PyTorch's type errors."""
    if _is_tensor(inp):
        return False, (inp,)
    if not isinstance(inp, tuple):
        raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple "
                        f"of Tensors but the given {arg_name} has type {type(inp)}.")
    for i, el in enumerate(inp):
        if not _is_tensor(el):
            raise TypeError(f"The element {i} of {arg_name} given to {fn_name} must be a Tensor "
                            f"but the given {arg_name} element has type {type(el)}.")
    return True, inp


def _tuple_postprocess(res, to_unpack):
    """Unpack nested tuples as the caller's input/output structure was."""
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    else:
        if not to_unpack:
            res = res[0]
    return res


def _grad_preprocess(inputs, create_graph, need_graph):
    """Fresh differentiable handles on the inputs (keeping their graph for create_graph)."""
    res = []
    for inp in inputs:
        if create_graph and inp.requires_grad:
            res.append(inp.view_as(inp))
        else:
            res.append(inp.detach().requires_grad_(need_graph))
    return tuple(res)


def _grad_postprocess(inputs, create_graph):
    if _is_tensor(inputs[0]) if inputs else False:
        if not create_graph:
            return tuple(inp.detach() if inp is not None else None for inp in inputs)
        return inputs
    return tuple(_grad_postprocess(inp, create_graph) for inp in inputs)


def _validate_v(v, other, is_other_tuple):
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got "
                               f"{len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(f"{prepend}v has invalid size: should be {el_other.size()} but "
                               f"got {el_v.size()}.")


def _check_requires_grad(inputs, input_type, strict):
    if not strict:
        return
    if input_type not in ("outputs", "grad_inputs", "jacobian", "hessian"):
        raise RuntimeError("Invalid input_type to _check_requires_grad")
    for i, inp in enumerate(inputs):
        if inp is None:
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode.")
        if not inp.requires_grad:
            if input_type == "hessian":
                raise RuntimeError(f"The hessian of the user-provided function with respect to "
                                   f"input {i} is independent of the input. This is not allowed "
                                   "in strict mode. You should ensure that your function is "
                                   "thrice differentiable and that the hessian depends on the "
                                   "inputs.")
            if input_type == "jacobian":
                raise RuntimeError(f"While computing the hessian, found that the jacobian of the "
                                   f"user-provided function with respect to input {i} is "
                                   "independent of the input. This is not allowed in strict "
                                   "mode. You should ensure that your function is twice "
                                   "differentiable and that the jacobian depends on the inputs "
                                   "(this would be violated by a linear function for example).")
            if input_type == "grad_inputs":
                raise RuntimeError(f"The gradient with respect to input {i} is independent of "
                                   "the inputs of the user-provided function. This is not "
                                   "allowed in strict mode.")
            raise RuntimeError(f"Output {i} of the user-provided function does not require "
                               "gradients. The outputs must be computed in a differentiable "
                               "manner from the input when running in strict mode.")


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """``autograd.grad`` that skips outputs not requiring grad and gives None for unused
    inputs."""
    from ._backward import grad
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    new_outs, new_gos = [], []
    for out, go in zip(outputs, grad_outputs):
        if out is not None and out.requires_grad:
            new_outs.append(out)
            new_gos.append(go)
    if not new_outs:
        return (None,) * len(inputs)
    return grad(new_outs, inputs, new_gos, allow_unused=True, create_graph=create_graph,
                retain_graph=retain_graph)


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    from .._ops.creation import zeros_like
    res = []
    for i, (g, r) in enumerate(zip(grads, refs)):
        if g is None:
            if strict:
                if stage == "back":
                    raise RuntimeError(f"The output of the user-provided function is independent "
                                       f"of input {i}. This is not allowed in strict mode.")
                if stage == "back_trick":
                    raise RuntimeError(f"The gradient with respect to the input is independent "
                                       f"of entry {i} in the grad_outputs when using the double "
                                       "backward trick to compute forward mode gradients. This "
                                       "is not allowed in strict mode.")
                if stage == "double_back":
                    raise RuntimeError(f"The jacobian of the user-provided function is "
                                       f"independent of input {i}. This is not allowed in "
                                       "strict mode.")
                raise RuntimeError(f"The hessian of the user-provided function is independent "
                                   f"of entry {i} in the grad_jacobian. This is not allowed in "
                                   "strict mode as it prevents from using the double backward "
                                   "trick to replace forward mode AD.")
            g = zeros_like(r)
        res.append(g)
    return tuple(res)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """The outputs of ``func(*inputs)`` and the vector-Jacobian product ``v^T J``.

    Args:
        func: a function of tensors returning a tensor or a tuple of tensors.
        inputs (Tensor or tuple of Tensors): the point.
        v (Tensor or tuple): the vector (may be None for a single one-element output).
        create_graph (bool): make the results differentiable.
        strict (bool): raise when an output does not depend on the inputs.

    Returns:
        ``(func_output, vjp)`` shaped like the outputs and the inputs.

    Example::

        >>> ember.autograd.functional.vjp(lambda x: x * 2, ember.ones(2), ember.ones(2))
        (tensor([2., 2.]), tensor([2., 2.]))
    """
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function",
                                              "vjp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        if v is not None:
            _, v = _as_tuple(v, "v", "vjp")
            v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
            _validate_v(v, outputs, is_outputs_tuple)
        else:
            if len(outputs) != 1 or outputs[0].nelement() != 1:
                raise RuntimeError("The vector v can only be None if the user-provided function "
                                   "returns a single Tensor with a single element.")
        enable_grad_ = True if create_graph else False
        from .grad_mode import set_grad_enabled
        with set_grad_enabled(enable_grad_):
            grad_res = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
            vjp_ = _fill_in_zeros(grad_res, inputs, strict, create_graph, "back")
    outputs = _grad_postprocess(outputs, create_graph)
    vjp_ = _grad_postprocess(vjp_, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(vjp_,
                                                                             is_inputs_tuple)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """The outputs of ``func(*inputs)`` and the Jacobian-vector product ``J v`` (by the
    double-backward trick).

    Args:
        func: a function of tensors returning a tensor or a tuple of tensors.
        inputs (Tensor or tuple of Tensors): the point.
        v (Tensor or tuple): the vector (may be None for a single one-element input).
        create_graph (bool): make the results differentiable.
        strict (bool): raise when an output does not depend on the inputs.

    Returns:
        ``(func_output, jvp)`` both shaped like the outputs.

    Example::

        >>> ember.autograd.functional.jvp(lambda x: x * 2, ember.ones(2), ember.ones(2))
        (tensor([2., 2.]), tensor([2., 2.]))
    """
    from .._ops.creation import zeros_like
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        if v is not None:
            _, v = _as_tuple(v, "v", "jvp")
            v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
            _validate_v(v, inputs, is_inputs_tuple)
        else:
            if len(inputs) != 1 or inputs[0].nelement() != 1:
                raise RuntimeError("The vector v can only be None if the input to the "
                                   "user-provided function is a single Tensor with a single "
                                   "element.")
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function",
                                              "jvp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        grad_outputs = tuple(zeros_like(out).requires_grad_(True) for out in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict=strict)
        if create_graph:
            with enable_grad():
                grad_res = _autograd_grad(grad_inputs, grad_outputs, v, create_graph=create_graph)
                jvp_ = _fill_in_zeros(grad_res, outputs, strict, create_graph, "back_trick")
        else:
            from .grad_mode import no_grad
            with no_grad():
                grad_res = _autograd_grad(grad_inputs, grad_outputs, v, create_graph=create_graph)
                jvp_ = _fill_in_zeros(grad_res, outputs, strict, create_graph, "back_trick")
    outputs = _grad_postprocess(outputs, create_graph)
    jvp_ = _grad_postprocess(jvp_, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(jvp_,
                                                                             is_outputs_tuple)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``.

    Args:
        func: a function of tensors returning a tensor or a tuple of tensors.
        inputs (Tensor or tuple of Tensors): the point.
        create_graph (bool): make the result differentiable.
        strict (bool): raise when an output does not depend on an input.
        vectorize (bool): accepted and ignored.
        strategy (str): ``"reverse-mode"`` or ``"forward-mode"`` (both computed in reverse
            mode; the result is the same).

    Returns:
        For one input and one output a tensor of shape ``output.shape + input.shape``;
        ``J[i][j]`` for tuples of outputs ``i`` and inputs ``j``.

    NOTE: unlike PyTorch, ``vectorize`` is ignored (rows are computed one by one).

    Example::

        >>> ember.autograd.functional.jacobian(lambda x: x * 2, ember.ones(2))
        tensor([[2., 0.],
                [0., 2.]])
    """
    from .._ops.creation import zeros_like, zeros
    if strategy not in ("forward-mode", "reverse-mode"):
        raise ValueError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: '
                         'If your function has more outputs than inputs, "forward-mode" tends to '
                         'be more performant. Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode" and not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse "
                                  "Hessian isonly implemented for `vectorize=True`.")
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function",
                                              "jacobian")
        _check_requires_grad(outputs, "outputs", strict=strict)
        jacobian_ = []
        for i, out in enumerate(outputs):
            rows = [[] for _ in inputs]
            flat = out.reshape(-1)
            for j in range(flat.nelement()):
                if out.requires_grad:
                    go = zeros_like(flat)
                    go._data[j] = 1
                    vj = _autograd_grad((flat,), inputs, (go,), retain_graph=True,
                                        create_graph=create_graph)
                else:
                    vj = (None,) * len(inputs)
                for el_idx, (rows_el, vj_el, inp_el) in enumerate(zip(rows, vj, inputs)):
                    if vj_el is not None:
                        if strict and create_graph and not vj_el.requires_grad:
                            raise RuntimeError("The jacobian of the user-provided function is "
                                               "independent of input {}. This is not allowed in "
                                               "strict mode when create_graph=True.".format(i))
                        rows_el.append(vj_el)
                    else:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is "
                                               f"independent of input {el_idx}. This is not "
                                               "allowed in strict mode.")
                        rows_el.append(zeros_like(inp_el))
            res = []
            for rows_el, inp_el in zip(rows, inputs):
                if rows_el:
                    res.append(_stack(rows_el).view(out.size() + inp_el.size()))
                else:
                    res.append(zeros(tuple(out.size()) + tuple(inp_el.size()),
                                     dtype=inp_el.dtype))
            jacobian_.append(tuple(res))
        jacobian_ = _grad_postprocess(tuple(jacobian_), create_graph)
        return _tuple_postprocess(jacobian_, (is_outputs_tuple, is_inputs_tuple))


def _stack(ts):
    """Stack along a new leading dim (differentiable)."""
    from .._ops.shape import stack
    return stack(ts)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of the scalar function ``func`` at ``inputs``.

    Args:
        func: a function of tensors returning a one-element tensor.
        inputs (Tensor or tuple of Tensors): the point.
        create_graph (bool): make the result differentiable.
        strict (bool): raise when the Hessian does not depend on an input.
        vectorize (bool): accepted and ignored.

    Returns:
        A tensor of shape ``input.shape + input.shape`` for one input; ``H[i][j]`` for a
        tuple of inputs.

    Example::

        >>> ember.autograd.functional.hessian(lambda x: (x * x * x).sum(), ember.ones(2))
        tensor([[6., 0.],
                [0., 6.]])
    """
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise ValueError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def ensure_single_output_function(*inp):
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict=strict)
        if is_out_tuple or not _is_tensor(out):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should "
                               "contain a single element")
        return out.squeeze()

    def jac_func(*inp):
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """The output of scalar ``func(*inputs)`` and the vector-Hessian product ``v^T H``.

    Args:
        func: a function of tensors returning a one-element tensor.
        inputs (Tensor or tuple of Tensors): the point.
        v (Tensor or tuple): the vector, shaped like the inputs.
        create_graph (bool): make the results differentiable.
        strict (bool): raise when the result does not depend on the inputs.

    Returns:
        ``(func_output, vhp)``.

    Example::

        >>> ember.autograd.functional.vhp(lambda x: (x * x * x).sum(), ember.ones(2),
        ...                               ember.ones(2))
        (tensor(2.), tensor([6., 6.]))
    """
    return _hvp_impl(func, inputs, v, create_graph, strict, "vhp")


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """The output of scalar ``func(*inputs)`` and the Hessian-vector product ``H v``
    (equal to ``vhp`` since the Hessian is symmetric).

    Args:
        func: a function of tensors returning a one-element tensor.
        inputs (Tensor or tuple of Tensors): the point.
        v (Tensor or tuple): the vector, shaped like the inputs.
        create_graph (bool): make the results differentiable.
        strict (bool): raise when the result does not depend on the inputs.

    Returns:
        ``(func_output, hvp)``.

    Example::

        >>> ember.autograd.functional.hvp(lambda x: (x * x * x).sum(), ember.ones(2),
        ...                               ember.ones(2))
        (tensor(2.), tensor([6., 6.]))
    """
    return _hvp_impl(func, inputs, v, create_graph, strict, "hvp")


def _hvp_impl(func, inputs, v, create_graph, strict, name):
    from .grad_mode import set_grad_enabled
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", name)
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        if v is not None:
            _, v = _as_tuple(v, "v", name)
            v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
            _validate_v(v, inputs, is_inputs_tuple)
        else:
            if len(inputs) != 1 or inputs[0].nelement() != 1:
                raise RuntimeError("The vector v can only be None if the input to the "
                                   "user-provided function is a single Tensor with a single "
                                   "element.")
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function",
                                              name)
        _check_requires_grad(outputs, "outputs", strict=strict)
        if is_outputs_tuple or not _is_tensor(outputs[0]):
            raise RuntimeError(f"The function given to {name} should return a single Tensor")
        if outputs[0].nelement() != 1:
            raise RuntimeError(f"The Tensor returned by the function given to {name} should "
                               "contain a single element")
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        with set_grad_enabled(create_graph):
            grad_res = _autograd_grad(jac, inputs, v, create_graph=create_graph)
            res = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back")
    outputs = _grad_postprocess(outputs, create_graph)
    res = _grad_postprocess(res, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(res,
                                                                             is_inputs_tuple)
