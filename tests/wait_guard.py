"""The fast tier's guard against waiting (issue 11: the fast tier under a minute on 2 cores).

A test of the fast tier (`-m "not e2e and not slurm"`) fails when its setup, call and teardown
spend more than `LIMIT` seconds of wall clock in which neither it (nor a child process it waited
for) used the CPU nor the machine was short of CPU or disk: time asleep, waiting for a scheduler's
retries, a server, a subprocess that itself sleeps. Such a test is an integration run
(`tests/conftest.py` INTEGRATION, or `pytestmark = pytest.mark.e2e`), a `slurm` test, or a test to
fix (`deadline()` of tests/helpers.py for a time limit; no sleeping on the clock).

The wait is measured so that a loaded machine cannot make a test fail: of the wall clock, take away
the CPU time of the process and of its finished children (`os.times`), the time the machine had a
task waiting for the CPU, for memory or for the disk (Linux's pressure stall information,
`/proc/pressure/*`, "some": covers this worker's and its children's waits for a core), and the time
spent waiting for the other xdist worker to make what the run shares (`waited_for_the_run`).
What is left is time this test slept, a lower bound (a multi-threaded child counts its CPU more
than once). Without /proc/pressure (not Linux) the guard is off. BIOPLAN_WAIT_LIMIT=<seconds>
sets the limit (0 turns the guard off).
"""

from __future__ import annotations

import functools
import os
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

LIMIT = 2.0  # seconds of waiting a fast test may spend
PRESSURE = tuple(Path("/proc/pressure") / kind for kind in ("cpu", "io", "memory"))
_START = pytest.StashKey["tuple[float, float, float] | None"]()


def limit() -> float:
    return float(os.environ.get("BIOPLAN_WAIT_LIMIT", LIMIT))


def stalled(paths: tuple[Path, ...] = PRESSURE) -> float | None:
    """Seconds, since boot, during which some task of the machine waited for CPU, memory or disk
    (each kind's "some" total; their overlaps counted twice, which only makes the guard milder);
    None where the kernel does not tell."""
    total = 0
    try:
        for path in paths:
            some = os.pread(_opened(path), 4096, 0).split(b"\n", 1)[0]
            total += int(some.rsplit(b"total=", 1)[1])
    except (OSError, IndexError, ValueError):
        return None
    return total / 1e6


@functools.cache
def _opened(path: Path) -> int:
    """A descriptor of `path` kept open for the process: the guard reads the pressure files three times a test
    (~4,000 tests a worker), and a read at offset 0 of the open file (the kernel writes the numbers anew) costs
    a fifth of opening, reading and closing it (~13 against ~66 us for the three)."""
    return os.open(path, os.O_RDONLY | os.O_CLOEXEC)


class SharedWait:
    """Seconds this process waited for the other xdist worker to make what the run shares (the
    validated knowledge, the example data): none of the waiting test's own."""

    def __init__(self, wall=time.perf_counter):
        self.seconds, self.wall = 0.0, wall

    @contextmanager
    def waiting(self):
        start = self.wall()
        try:
            yield
        finally:
            self.seconds += self.wall() - start


SHARED = SharedWait()


def waited_for_the_run():
    """`with waited_for_the_run():` around a wait for the other worker (tests/conftest.py _run_lock)."""
    return SHARED.waiting()


# long-lived children that tests hand work to and wait for (a Snakemake process serving many dry runs,
# tests/conftest.py dry_run_loop): their CPU counts as the waiting test's while they live; once reaped
# it is in the finished children's (so a child is left out after its wait() only)
LIVE_CHILDREN: set[int] = set()


def live_children_cpu(pids: set[int] = LIVE_CHILDREN) -> float:
    """CPU seconds (user + system) the live children of `pids` have used so far (/proc/<pid>/stat)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime: the stat file's 14th and 15th fields
    return total / os.sysconf("SC_CLK_TCK")


def clocks(stall=stalled, times=os.times, wall=time.perf_counter, shared=SHARED,
           live=live_children_cpu) -> tuple[float, float, float] | None:
    """(wall clock, CPU of this process, of its finished children and of its LIVE_CHILDREN, the machine's
    stall time plus this process's waits for the other worker): the wait of a stretch is its wall clock less
    the other two; None where the stall time is unknown."""
    stalled_now = stall()
    if stalled_now is None:
        return None
    now = times()
    cpu = now.user + now.system + now.children_user + now.children_system + live()
    return wall(), cpu, stalled_now + shared.seconds


class WaitGuard:
    """The pytest plugin: the clocks read as a test starts, after its call and after its teardown; the
    test fails at its call, or errs at its teardown, when it waited past the limit since it started
    (the setup's and teardown's waits count: a fixture that waits for a server or a scheduler)."""

    def __init__(self, limit: float, read=clocks):
        self.limit, self.read = limit, read

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        item.stash[_START] = self.read()
        return (yield)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item, call):
        report = yield
        start = item.stash.get(_START, None)
        if call.when == "setup" or start is None:
            return report
        now = self.read()
        if now is None:
            return report
        wall, cpu, stall = (b - a for a, b in zip(start, now))
        waited = wall - cpu - stall
        if report.passed and waited > self.limit:
            report.outcome = "failed"
            report.longrepr = (
                f"{item.nodeid} waited {waited:.1f} s of wall clock beyond its CPU time (the fast tier allows "
                f"{self.limit:g} s; tests/wait_guard.py): sleeps, a scheduler's retries, a subprocess or server "
                "it waits for. To resolve, fix the wait (no sleeping on the clock; tests/helpers.py deadline() for "
                "a time limit), or make it an integration run: list it in tests/conftest.py INTEGRATION with the "
                "reason (or `pytestmark = pytest.mark.e2e`), or mark it `slurm`.")
            item.stash[_START] = now  # reported once: the teardown counts its own wait only
        elif not report.passed:
            item.stash[_START] = now  # a failed test gets no second failure for the wait before it
        return report


def register(config, fast_tier: bool, stall=stalled) -> None:
    """Turns the guard on in the fast tier (the `-m` expression leaves out every e2e test)."""
    if fast_tier and limit() > 0 and stall() is not None:
        config.pluginmanager.register(WaitGuard(limit()), "bioplan_wait_guard")
