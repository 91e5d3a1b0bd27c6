"""Holding terminating signals across a step that must not be cut in two.

The CLI turns SIGINT, SIGTERM and SIGHUP into `Interrupted` (see cli.py), so that every `finally`
runs. A few steps must complete before that exception may be raised: moving the staged files into
-o (else a half-installed tree), and starting the pre-check's child process (else a child that
nobody stops). `deferred_signals()` records a signal that arrives during such a step and acts on it,
as its own handler would have, right after the step.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

DEFERRED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@contextmanager
def deferred_signals() -> Iterator[None]:
    """Hold SIGINT, SIGTERM and SIGHUP for the duration of the block; act on the first one after it.

    Python-level (handlers swapped, not the signal mask), since any thread of the process may be the
    one the kernel hands a signal to. Signals the process ignores stay ignored."""
    if threading.current_thread() is not threading.main_thread():  # only the main thread sets handlers
        yield
        return
    pending: list[signal.Signals] = []
    previous = {sig: signal.getsignal(sig) for sig in DEFERRED_SIGNALS}
    held = {sig: handler for sig, handler in previous.items() if handler not in (signal.SIG_IGN, None)}
    for sig in held:
        signal.signal(sig, lambda signum, frame: pending.append(signal.Signals(signum)))
    try:
        yield
    finally:
        for sig, handler in held.items():
            signal.signal(sig, handler)
        if pending:
            handler = held[pending[0]]
            if callable(handler):
                handler(pending[0], None)
            else:  # SIG_DFL: the default action (terminate) by the signal itself
                os.kill(os.getpid(), pending[0])
