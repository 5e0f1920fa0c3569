"""L-BFGS, with an optional strong-Wolfe line search."""
from .._backend import array_module
from .._tensor import Tensor, _new_tensor
from .optimizer import Optimizer
from ._functional import _scalar, _arr, _bump

__all__ = ['LBFGS']


def _cubic_min(x1, f1, g1, x2, f2, g2, bounds=None):
    """Minimizer of the cubic through (x1, f1, g1) and (x2, f2, g2), clipped to bounds."""
    if bounds is not None:
        lo, hi = bounds
    else:
        lo, hi = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    disc = d1 ** 2 - g1 * g2
    if disc >= 0:
        d2 = disc ** 0.5
        if x1 <= x2:
            pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(pos, lo), hi)
    return (lo + hi) / 2.0


def _strong_wolfe(evaluate, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9,
                  max_ls=25):
    """Line search along ``d`` for a step ``t`` meeting the strong Wolfe conditions
    (bracketing, then zoom by cubic interpolation). ``evaluate(t)`` returns the loss and
    flat gradient at ``x + t d``. Returns (loss, grad, t, evaluations)."""
    xp = array_module(d)
    d_norm = xp.abs(d).max()
    g = g.copy()
    f_new, g_new = evaluate(t)
    evals = 1
    gtd_new = g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    it = 0
    while it < max_ls:
        if f_new > (f + c1 * t * gtd) or (it > 1 and f_new >= f_prev):
            br, br_f, br_g, br_gtd = [t_prev, t], [f_prev, f_new], [g_prev, g_new.copy()], \
                [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            br, br_f, br_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            br, br_f, br_g, br_gtd = [t_prev, t], [f_prev, f_new], [g_prev, g_new.copy()], \
                [gtd_prev, gtd_new]
            break
        lo_step = t + 0.01 * (t - t_prev)
        hi_step = t * 10
        old_t = t
        t = _cubic_min(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(lo_step, hi_step))
        t_prev, f_prev, g_prev, gtd_prev = old_t, f_new, g_new.copy(), gtd_new
        f_new, g_new = evaluate(t)
        evals += 1
        gtd_new = g_new.dot(d)
        it += 1
    if it == max_ls:
        br, br_f, br_g = [0, t], [f, f_new], [g, g_new]
    insuf = False
    lo_i, hi_i = (0, 1) if br_f[0] <= br_f[-1] else (1, 0)
    while not done and it < max_ls:
        if abs(br[1] - br[0]) * d_norm < tolerance_change:
            break
        t = _cubic_min(br[0], br_f[0], br_gtd[0], br[1], br_f[1], br_gtd[1])
        width = 0.1 * (max(br) - min(br))
        if min(max(br) - t, t - min(br)) < width:
            if insuf or t >= max(br) or t <= min(br):
                t = max(br) - width if abs(t - max(br)) < abs(t - min(br)) else min(br) + width
                insuf = False
            else:
                insuf = True
        else:
            insuf = False
        f_new, g_new = evaluate(t)
        evals += 1
        gtd_new = g_new.dot(d)
        it += 1
        if f_new > (f + c1 * t * gtd) or f_new >= br_f[lo_i]:
            br[hi_i], br_f[hi_i], br_g[hi_i], br_gtd[hi_i] = t, f_new, g_new.copy(), gtd_new
            lo_i, hi_i = (0, 1) if br_f[0] <= br_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (br[hi_i] - br[lo_i]) >= 0:
                br[hi_i], br_f[hi_i], br_g[hi_i], br_gtd[hi_i] = \
                    br[lo_i], br_f[lo_i], br_g[lo_i], br_gtd[lo_i]
            br[lo_i], br_f[lo_i], br_g[lo_i], br_gtd[lo_i] = t, f_new, g_new.copy(), gtd_new
    return br_f[lo_i], br_g[lo_i], br[lo_i], evals


def _wrap(v):
    """State values as PyTorch keeps them: arrays and array scalars become tensors."""
    if isinstance(v, list):
        return [_wrap(a) for a in v]
    if hasattr(v, 'dtype') and hasattr(v, 'ndim'):
        return _new_tensor(v)
    return v


def _unwrap(v):
    if isinstance(v, list):
        return [_unwrap(a) for a in v]
    if isinstance(v, Tensor):
        a = v._data
        return a[()] if a.ndim == 0 else a
    return v


class LBFGS(Optimizer):
    r"""L-BFGS (a port of the minFunc algorithm's logic): a quasi-Newton method keeping
    ``history_size`` curvature pairs; each :meth:`step` runs up to ``max_iter``
    iterations and needs a ``closure`` that re-evaluates the loss and its gradients.

    Args:
        params (iterable): parameters (one group only).
        lr (float or Tensor): learning rate (default 1).
        max_iter (int): iterations per step (default 20).
        max_eval (int): loss evaluations per step (default ``max_iter * 5 // 4``).
        tolerance_grad (float): stop when the largest gradient entry is below (default 1e-7).
        tolerance_change (float): stop when the loss or the parameters change by less
            (default 1e-9).
        history_size (int): curvature pairs kept (default 100).
        line_search_fn (str): ``'strong_wolfe'`` or None (default None).

    NOTE: unlike PyTorch, dot products are computed by the array library's BLAS, so
    trajectories agree with PyTorch's to float round-off, not bit for bit.

    Example::

        >>> optimizer = ember.optim.LBFGS(model.parameters(), line_search_fn='strong_wolfe')
        >>> def closure():
        ...     optimizer.zero_grad()
        ...     loss = loss_fn(model(input), target)
        ...     loss.backward()
        ...     return loss
        >>> optimizer.step(closure)
    """

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval,
                        tolerance_grad=tolerance_grad, tolerance_change=tolerance_change,
                        history_size=history_size, line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]['params']
        self._numel_cache = None

    def _numel(self):
        if self._numel_cache is None:
            self._numel_cache = sum(_arr(p).size for p in self._params)
        return self._numel_cache

    def _flat_grad(self):
        parts = []
        for p in self._params:
            x = _arr(p)
            xp = array_module(x)
            if p.grad is None:
                parts.append(xp.zeros(x.size, x.dtype))
            else:
                parts.append(_arr(p.grad).reshape(-1))
        return xp.concatenate(parts)

    def _add(self, t, d):
        off = 0
        for p in self._params:
            x = _arr(p)
            n = x.size
            x += (t * d[off:off + n]).reshape(x.shape)
            off += n
            _bump(p)

    def _directional(self, closure, x0, t, d):
        self._add(t, d)
        loss = float(closure())
        g = self._flat_grad()
        for p, a in zip(self._params, x0):
            _arr(p)[...] = a
            _bump(p)
        return loss, g

    def step(self, closure):
        """Perform one optimization step (up to ``max_iter`` iterations).

        Args:
            closure (callable): re-evaluates the model and returns the loss.
        """
        from ..autograd.grad_mode import enable_grad

        def closure_grad():
            with enable_grad():
                return closure()
        group = self.param_groups[0]
        lr = _scalar(group['lr'])
        max_iter, max_eval = group['max_iter'], group['max_eval']
        tol_grad, tol_change = group['tolerance_grad'], group['tolerance_change']
        line_search_fn, history_size = group['line_search_fn'], group['history_size']

        state = self.state[self._params[0]]
        state.setdefault('func_evals', 0)
        state.setdefault('n_iter', 0)
        orig_loss = closure_grad()
        loss = float(orig_loss)
        evals = 1
        state['func_evals'] += 1
        flat_grad = self._flat_grad()
        xp = array_module(flat_grad)
        if xp.abs(flat_grad).max() <= tol_grad:
            return orig_loss

        d = _unwrap(state.get('d'))
        t = _unwrap(state.get('t'))
        old_dirs = _unwrap(state.get('old_dirs'))
        old_stps = _unwrap(state.get('old_stps'))
        ro = _unwrap(state.get('ro'))
        H_diag = _unwrap(state.get('H_diag'))
        prev_flat_grad = _unwrap(state.get('prev_flat_grad'))
        prev_loss = state.get('prev_loss')

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state['n_iter'] += 1
            if state['n_iter'] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1
            else:
                y = flat_grad - prev_flat_grad
                s = d * t
                ys = y.dot(s)
                if ys > 1e-10:
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / y.dot(y)
                k = len(old_dirs)
                if 'al' not in state:
                    state['al'] = [None] * history_size
                al = state['al']
                q = -flat_grad
                for i in range(k - 1, -1, -1):
                    al[i] = _wrap(old_stps[i].dot(q) * ro[i])
                    q -= float(al[i]) * old_dirs[i]
                d = r = q * H_diag
                for i in range(k):
                    be_i = old_dirs[i].dot(r) * ro[i]
                    r += float(_unwrap(al[i]) - be_i) * old_stps[i]
            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.copy()
            else:
                prev_flat_grad[...] = flat_grad
            prev_loss = loss
            if state['n_iter'] == 1:
                t = min(1.0, 1.0 / xp.abs(flat_grad).sum()) * lr
            else:
                t = lr
            gtd = flat_grad.dot(d)
            if gtd > -tol_change:
                break
            ls_evals = 0
            if line_search_fn is not None:
                if line_search_fn != 'strong_wolfe':
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x0 = [_arr(p).copy() for p in self._params]
                loss, flat_grad, t, ls_evals = _strong_wolfe(
                    lambda tt: self._directional(closure_grad, x0, float(tt), d),
                    t, d, loss, flat_grad, gtd, max_ls=max_eval - evals)
                self._add(float(t), d)
                opt_cond = xp.abs(flat_grad).max() <= tol_grad
            else:
                self._add(float(t), d)
                opt_cond = False
                if n_iter != max_iter:
                    loss = float(closure_grad())
                    flat_grad = self._flat_grad()
                    opt_cond = xp.abs(flat_grad).max() <= tol_grad
                    ls_evals = 1
            evals += ls_evals
            state['func_evals'] += ls_evals
            if n_iter == max_iter:
                break
            if evals >= max_eval:
                break
            if opt_cond:
                break
            if xp.abs(d * t).max() <= tol_change:
                break
            if abs(loss - prev_loss) < tol_change:
                break

        state['d'] = _wrap(d)
        state['t'] = _wrap(t)
        state['old_dirs'] = _wrap(old_dirs)
        state['old_stps'] = _wrap(old_stps)
        state['ro'] = _wrap(ro)
        state['H_diag'] = _wrap(H_diag)
        state['prev_flat_grad'] = _wrap(prev_flat_grad)
        state['prev_loss'] = prev_loss
        return orig_loss
