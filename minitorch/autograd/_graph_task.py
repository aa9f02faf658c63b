"""The backward pass running in this thread (torch's graph task).

Hooks that must tell one backward from the next, or know which graph nodes
the running one reaches (``graph.register_multi_grad_hook``, non-reentrant
checkpoint), read it here. The C engine entry keeps the run (its id, roots,
inputs and a state dict that lives as long as the run) and puts back the
saved-tensor hooks stack it started with when it ends.
"""
from .. import _C


def node_of(t):
    """The node a gradient for tensor ``t`` flows into: its grad_fn, or the
    AccumulateGrad node of a leaf that requires grad (None otherwise)."""
    from .grad_mode import enable_grad
    if t.grad_fn is not None or not t.requires_grad:
        return t.grad_fn
    with enable_grad():
        return t.view_as(t).grad_fn.next_functions[0][0]


class GraphTask:
    """One engine run: its roots and, in capture mode, the tensors whose
    gradients it returns (only the part of the graph leading to them runs)."""

    def __init__(self) -> None:
        self.id = _C._current_graph_task_id()
        self.roots, self.inputs = _C._current_graph_task_roots()
        self.state = {}  # per-hook bookkeeping, gone when the run ends
        self._executed = None

    def will_execute(self, node) -> bool:
        if self._executed is None:
            self._executed = self._executed_nodes()
        return id(node) in self._executed

    def _executed_nodes(self):
        seen = {}
        stack = [n for n in map(node_of, self.roots) if n is not None]
        while stack:
            n = stack.pop()
            if id(n) in seen:
                continue
            seen[id(n)] = n  # keeps n alive, so its id stays its own
            stack.extend(nxt for nxt, _ in n.next_functions if nxt is not None)
        if self.inputs is None:
            return seen
        targets = {id(n) for n in map(node_of, self.inputs) if n is not None}
        reaches = {}
        for start in list(seen.values()):
            # iterative post-order: a node runs when it leads to a target
            todo = [(start, False)]
            while todo:
                m, done = todo.pop()
                if id(m) in reaches:
                    continue
                kids = [k for k, _ in m.next_functions if k is not None]
                if not done:
                    todo.append((m, True))
                    todo.extend((k, False) for k in kids if id(k) not in reaches)
                    continue
                reaches[id(m)] = id(m) in targets or any(reaches[id(k)] for k in kids)
        return {k: n for k, n in seen.items() if reaches[k]}


def current():
    """The innermost backward running in this thread, or None."""
    state = _C._current_graph_task_state()
    if state is None:
        return None
    task = state.get(GraphTask)
    if task is None:
        task = state[GraphTask] = GraphTask()
    return task
