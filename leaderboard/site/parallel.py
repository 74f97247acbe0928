"""Run independent jobs in forked worker processes, in order; serially where fork is missing.

Workers inherit the parent's memory (the loaded dataset, the scored entries), so jobs
pass only small arguments. Results come back in the order of the inputs, so the output
of a build never depends on the number of workers.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

_FUNC: Callable | None = None  # the job function, inherited by forked workers


def default_workers(jobs: int, min_jobs_per_worker: int = 20) -> int:
    """One worker per CPU (at most 4), and only when there are enough jobs to pay for the fork."""
    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return max(1, min(os.cpu_count() or 1, 4, jobs // min_jobs_per_worker))


def _run(item):
    return _FUNC(item)  # type: ignore[misc]


def fork_map(func: Callable[[T], R], items: Sequence[T], workers: int | None = None) -> list[R]:
    """``[func(item) for item in items]``, spread over ``workers`` forked processes."""
    global _FUNC
    workers = default_workers(len(items)) if workers is None else workers
    if workers <= 1 or len(items) <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        return [func(item) for item in items]
    _FUNC = func
    try:
        with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork")) as pool:
            chunk = max(1, len(items) // (workers * 4))
            return list(pool.map(_run, items, chunksize=chunk))
    finally:
        _FUNC = None
