"""The strong-Wolfe line search of optim.LBFGS (line_search_fn="strong_wolfe"),
with torch's bracketing, zoom and cubic interpolation, so the same closure
takes the same steps. Losses, slopes and step lengths may be 0-d tensors, as
in torch, so they round in the parameters' dtype."""
from typing import Any, Callable, List, Optional, Tuple


def cubic_interpolate(x1: Any, f1: Any, g1: Any, x2: Any, f2: Any, g2: Any,
                      bounds: Optional[Tuple[Any, Any]] = None) -> Any:
    """The minimizer of the cubic through (x1, f1) and (x2, f2) with slopes g1
    and g2, clamped to bounds (default: between x1 and x2); the midpoint when
    the cubic has no minimum."""
    lo, hi = bounds if bounds is not None else ((x1, x2) if x1 <= x2 else (x2, x1))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square < 0:
        return (lo + hi) / 2.0
    d2 = d2_square.sqrt()
    if x1 <= x2:
        min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(min_pos, lo), hi)


class _Bracket:
    """An interval of step lengths known to hold a point satisfying the strong
    Wolfe conditions, with the loss, gradient and slope at both ends."""

    def __init__(self, t: List[Any], f: List[Any], g: List[Any], gtd: List[Any]) -> None:
        self.t, self.f, self.g, self.gtd = t, f, g, gtd
        self.order()

    def order(self) -> None:
        """low: the end with the lower loss (the first on a tie)."""
        self.low, self.high = (0, 1) if self.f[0] <= self.f[-1] else (1, 0)

    def set(self, pos: int, t: Any, f: Any, g: Any, gtd: Any) -> None:
        self.t[pos], self.f[pos], self.g[pos], self.gtd[pos] = t, f, g, gtd


def strong_wolfe(obj_func: Callable[[Any, Any, Any], Tuple[float, Any]], x: Any, t: Any, d: Any,
                 f: float, g: Any, gtd: Any, c1: float = 1e-4, c2: float = 0.9,
                 tolerance_change: float = 1e-9, max_ls: int = 25) -> Tuple[float, Any, Any, int]:
    """Searches along direction d from x (loss f, gradient g, slope gtd) for a
    step t meeting the strong Wolfe conditions. obj_func(x, t, d) returns the
    loss and flat gradient at x + t d. Returns (loss, gradient, t, evals)."""
    d_norm = d.abs().max()
    g = g.clone()
    f_new, g_new = obj_func(x, t, d)
    evals = 1
    gtd_new = g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    bracket: Optional[_Bracket] = None
    done = False
    ls_iter = 0
    # Phase 1: grow the step until an interval brackets an acceptable point.
    while ls_iter < max_ls:
        if f_new > f + c1 * t * gtd or (ls_iter > 1 and f_new >= f_prev):
            bracket = _Bracket([t_prev, t], [f_prev, f_new], [g_prev, g_new.clone()],
                               [gtd_prev, gtd_new])
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket = _Bracket([t], [f_new], [g_new], [gtd_new])
            done = True
            break
        if gtd_new >= 0:
            bracket = _Bracket([t_prev, t], [f_prev, f_new], [g_prev, g_new.clone()],
                               [gtd_prev, gtd_new])
            break
        t_next = cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                                   bounds=(t + 0.01 * (t - t_prev), t * 10))
        t_prev, f_prev, g_prev, gtd_prev = t, f_new, g_new.clone(), gtd_new
        t = t_next
        f_new, g_new = obj_func(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket = _Bracket([0, t], [f, f_new], [g, g_new], [None, None])
    assert bracket is not None
    # Phase 2: zoom into the bracket.
    insuf_progress = False
    while not done and ls_iter < max_ls:
        lo_t, hi_t = min(bracket.t), max(bracket.t)
        if abs(bracket.t[1] - bracket.t[0]) * d_norm < tolerance_change:
            break
        t = cubic_interpolate(bracket.t[0], bracket.f[0], bracket.gtd[0],
                              bracket.t[1], bracket.f[1], bracket.gtd[1])
        # Keep t away from the ends unless the last pick made no progress.
        eps = 0.1 * (hi_t - lo_t)
        if min(hi_t - t, t - lo_t) < eps:
            if insuf_progress or t >= hi_t or t <= lo_t:
                t = hi_t - eps if abs(t - hi_t) < abs(t - lo_t) else lo_t + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
        if f_new > f + c1 * t * gtd or f_new >= bracket.f[bracket.low]:
            bracket.set(bracket.high, t, f_new, g_new.clone(), gtd_new)
            bracket.order()
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket.t[bracket.high] - bracket.t[bracket.low]) >= 0:
                low = bracket.low
                bracket.set(bracket.high, bracket.t[low], bracket.f[low], bracket.g[low],
                            bracket.gtd[low])
            bracket.set(bracket.low, t, f_new, g_new.clone(), gtd_new)
    low = bracket.low
    return bracket.f[low], bracket.g[low], bracket.t[low], evals
