"""Schedules made of other schedules, as torch's SequentialLR (one after
another, switching at milestones) and ChainedScheduler (all at every step)."""
from bisect import bisect_right
from typing import Any, Dict, List, Optional, Sequence

from .optimizer import Optimizer
from .plateau_scheduler import ReduceLROnPlateau
from .scheduler_base import LRScheduler, _group_values


def _check_schedulers(owner: str, optimizer: Optimizer,
                      schedulers: Sequence[LRScheduler]) -> None:
    """torch's errors for schedulers that cannot be composed."""
    for idx, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{owner} at index {idx} should have `optimizer` as its attribute.")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(
                f"{owner} does not support `ReduceLROnPlateau` scheduler as it requires "
                "additional kwargs to be specified when calling `step`, but got one at index "
                f"{idx} in the given schedulers sequence."
            )
        if optimizer != scheduler.optimizer:
            raise ValueError(
                f"{owner} expects all schedulers to belong to the same optimizer, but got "
                f"scheduler {scheduler.__class__.__name__} at index {idx} has "
                f"{scheduler.optimizer}, which is different from "
                f"{optimizer.__class__.__name__}."
            )


class _ComposedScheduler(LRScheduler):
    """A scheduler over child schedulers; its state_dict nests theirs."""

    _schedulers: Sequence[LRScheduler]

    def state_dict(self) -> Dict[str, Any]:
        """The scheduler's state, with the wrapped schedulers' states."""
        state = {key: value for key, value in self.__dict__.items()
                 if key not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        """Loads the scheduler's state and the wrapped schedulers' states."""
        state_dict = dict(state_dict)
        children = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        for scheduler, state in zip(self._schedulers, children):
            scheduler.load_state_dict(state)


class SequentialLR(_ComposedScheduler):
    """Runs the schedulers one after another: schedulers[i] drives the lr from
    milestones[i - 1] on, restarting from the initial lr at each milestone."""

    def __init__(self, optimizer: Optimizer, schedulers: List[LRScheduler],
                 milestones: List[int], last_epoch: int = -1) -> None:
        owner = self.__class__.__name__
        if len(schedulers) < 1:
            raise ValueError(f"{owner} expects at least one scheduler, but got no scheduler.")
        _check_schedulers(owner, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more "
                "than the number of milestone points, but got number of schedulers "
                f"{len(schedulers)} and the number of milestones to be equal to "
                f"{len(milestones)}"
            )
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # Undo the steps the children took when they were built, then let the
        # first active one take its initial step again.
        for group in self.optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        self.recursive_undo()
        idx = bisect_right(self._milestones, 0)
        self._schedulers[idx]._initial_step()
        self._last_lr = schedulers[idx].get_last_lr()

    def recursive_undo(self, sched: Optional[Any] = None) -> None:
        """Steps every (nested) child scheduler's last_epoch back by one."""
        scheds = self if sched is None else sched
        if hasattr(scheds, "_schedulers"):
            for s in scheds._schedulers:
                self.recursive_undo(s)
        elif hasattr(scheds, "last_epoch"):
            scheds.last_epoch -= 1

    def step(self) -> None:  # type: ignore[override]
        """Steps the scheduler active at the next epoch (restarting it at its
        milestone)."""
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ChainedScheduler(_ComposedScheduler):
    """Steps every scheduler in the list at each step, so their effects on
    the lr compose."""

    def __init__(self, schedulers: Sequence[LRScheduler],
                 optimizer: Optional[Optimizer] = None) -> None:
        owner = self.__class__.__name__
        if len(schedulers) < 1:
            raise ValueError(
                f"{owner} expects at least one scheduler to be chained, but got no scheduler."
            )
        optimizer = optimizer or schedulers[0].optimizer
        _check_schedulers(owner, optimizer, schedulers)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _group_values(self._schedulers[-1].optimizer, "lr")

    def step(self) -> None:  # type: ignore[override]
        """Steps every chained scheduler once."""
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = _group_values(self._schedulers[-1].optimizer, "lr")
