"""Where the runs of a study execute: this process, a Dask `LocalCluster`, or a scheduler.

`open_executor` validates the choice and connects before any run starts (an unreachable
scheduler fails within `connect_timeout`); `run_all` maps one picklable function over the
items, yielding ``(index, result)`` in completion order with a progress bar. Dask is imported
only here and only when a cluster is used.
"""

from __future__ import annotations

import logging
import os
from contextlib import contextmanager

from ..errors import ParameterError, PortHamiltonianError

__all__ = ["open_executor", "run_all", "WorkerLost"]


class WorkerLost(Exception):
    """Raised in place of a run's result when the worker running it died (a crash, an
    out-of-memory kill): the run is recorded as failed, the study goes on."""


def _check_workers(workers):
    if workers is None:
        return os.cpu_count() or 1
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 0:
        raise ParameterError(f"`workers` must be an integer >= 0 (0: run in this process, no Dask), got {workers!r}")
    return workers


def stop_in_a_worker_importing_the_script():
    """End a new worker process quietly when it meets a sweep or an identification while
    importing the user's script (the script starts a local cluster without
    ``if __name__ == "__main__":``).

    Each of Dask's worker processes imports the main script; without the guard it reaches the
    sweep again while still starting up, where multiprocessing refuses a new process and every
    worker printed a long traceback (466 lines for two workers, issue 35). Here such a worker
    exits at once, silently (``SystemExit``), and the script's own process, whose cluster then
    fails to start, raises the one error that names the fix (`open_executor`).
    """
    import multiprocessing.process

    if getattr(multiprocessing.process.current_process(), "_inheriting", False):   # multiprocessing's own test
        raise SystemExit(1)


@contextmanager
def open_executor(workers=None, scheduler=None, connect_timeout=5.0):
    """Yield a `distributed.Client`, or None for runs in this process.

    Parameters
    ----------
    workers : int, optional
        Worker processes of the `LocalCluster` (one thread each; default: one per core), or
        0 to run in this process without Dask. Ignored with `scheduler`. Local workers start
        no compile helpers (``PORTHAMILTONIAN_COMPILE_HELPERS=0`` unless set here): they
        share the first compile among themselves (`porthamiltonian.kernels._parallel`).
    scheduler : str or distributed.Client, optional
        A scheduler's address (``tcp://host:8786``) or a connected client: the runs go to
        that cluster, whose workers must have this package installed (and, to share the
        compiled code, ``NUMBA_CACHE_DIR`` and ``PORTHAMILTONIAN_CACHE`` in their
        environment; local worker processes inherit this process's environment).
    connect_timeout : float [s]
        How long to wait for `scheduler` to answer.

    Raises
    ------
    ParameterError
        A bad `workers`, a malformed address or a scheduler that does not answer in time:
        before any run starts.
    PortHamiltonianError
        The local cluster did not start (typically: a script without a main guard).
    """
    if scheduler is None:
        workers = _check_workers(workers)
        if workers != 0:
            stop_in_a_worker_importing_the_script()
    if not (isinstance(connect_timeout, (int, float)) and connect_timeout > 0):
        raise ParameterError(f"`connect_timeout` must be a number of seconds > 0, got {connect_timeout!r}")
    if scheduler is None and workers == 0:
        yield None
        return
    from distributed import Client, LocalCluster

    if isinstance(scheduler, Client):
        yield scheduler
        return
    if scheduler is not None:
        if not isinstance(scheduler, str) or not scheduler.strip():
            raise ParameterError(f"`scheduler` must be an address like 'tcp://host:8786' or a distributed.Client, "
                                 f"got {scheduler!r}")
        try:
            client = Client(scheduler, timeout=f"{connect_timeout}s")
        except (OSError, ValueError, TypeError) as exc:
            raise ParameterError(f"`scheduler` {scheduler!r}: no Dask scheduler answered within {connect_timeout} s "
                                 f"({type(exc).__name__}: {exc})") from None
        try:
            yield client
        finally:
            client.close()
        return
    try:
        # the workers compile in parallel already (sharing the contact chain's compiles through
        # its claims): no helper processes of their own (`porthamiltonian.kernels._parallel`)
        helpers = os.environ.get("PORTHAMILTONIAN_COMPILE_HELPERS", "0")
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                               silence_logs=logging.ERROR, env={"PORTHAMILTONIAN_COMPILE_HELPERS": helpers})
    except RuntimeError as exc:
        raise PortHamiltonianError(
            f"the local Dask cluster of {workers} worker process(es) did not start ({exc}); in a script, start the "
            "study under `if __name__ == \"__main__\":` (the workers are new processes that import the script), or "
            "run it here with workers=0") from None   # Dask's nested start-up traceback hides this line (issue 35)
    client = Client(cluster)
    try:
        yield client
    finally:
        client.close()
        cluster.close()


def run_all(client, fn, items, *, progress=True, description="runs"):
    """Yield ``(index, fn(item))`` for every item, in completion order.

    With a client, each item is one Dask task (no retries: a run is not repeated behind the
    user's back; a task whose worker died yields a `WorkerLost` as its result). Without, the
    items run here in order. A tqdm bar counts the finished items when `progress`.
    """
    from tqdm.auto import tqdm

    items = list(items)
    bar = tqdm(total=len(items), desc=description, unit="run", disable=not progress or not items)
    try:
        if client is None:
            for i, item in enumerate(items):
                result = fn(item)
                bar.update()
                yield i, result
            return
        from distributed import as_completed

        futures = client.map(fn, items, pure=False, retries=0)
        index = {f.key: i for i, f in enumerate(futures)}
        try:
            for future in as_completed(futures):
                try:
                    result = future.result()
                except Exception as exc:  # a worker lost mid-run: the run failed, the study goes on
                    result = WorkerLost(f"{type(exc).__name__}: {exc}")
                bar.update()
                yield index[future.key], result
        finally:
            client.cancel([f for f in futures if not f.done()])
    finally:
        bar.close()
