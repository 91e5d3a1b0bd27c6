"""A line of progress on stderr for any step that takes more than a second.

Fast steps stay silent, so a quick command prints only its result; a step still running after
`after` seconds says what it is doing, and how long it took when it ends:

    with slow_step("checking the workflow with snakemake -n"):
        run_the_check()

stderr, never stdout. Silent under `quiet()` (the CLI's `--json` mode: a consumer reading both
streams gets JSON only) and with BIOPLAN_QUIET=1.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

SLOW_AFTER_SECONDS = 1.0
# how many quiet() blocks are open: process-wide, so that the worker threads of `eval --compile`
# are silenced too
_quiet_depth = 0
_quiet_lock = threading.Lock()


@contextmanager
def quiet() -> Iterator[None]:
    """No progress lines while this block runs."""
    global _quiet_depth
    with _quiet_lock:
        _quiet_depth += 1
    try:
        yield
    finally:
        with _quiet_lock:
            _quiet_depth -= 1


@contextmanager
def slow_step(what: str, after: float | None = None, stream: TextIO | None = None) -> Iterator[None]:
    if _quiet_depth or os.environ.get("BIOPLAN_QUIET"):
        yield
        return
    after = SLOW_AFTER_SECONDS if after is None else after  # read now: a test may lower it
    out = stream if stream is not None else sys.stderr
    started = time.perf_counter()
    announced = threading.Event()

    def announce() -> None:
        announced.set()
        print(f"bioplan: {what} ...", file=out, flush=True)

    timer = threading.Timer(after, announce)
    timer.daemon = True  # never keeps an interrupted bioplan alive
    timer.start()
    finished = False
    try:
        yield
        finished = True
    finally:
        timer.cancel()
        timer.join()
        if announced.is_set():
            print(f"bioplan: {what}: {'done in' if finished else 'stopped after'} "
                  f"{time.perf_counter() - started:.1f} s", file=out, flush=True)
