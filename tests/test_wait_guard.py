"""The fast tier's guard against waiting (tests/wait_guard.py), on clocks this module sets: a test that
sleeps past the limit fails naming the way out; a loaded machine, CPU work in the test or its
children, and waiting for the other worker's shared data do not count."""

from __future__ import annotations

import functools
from types import SimpleNamespace

import pytest
from _pytest.reports import TestReport

import wait_guard


class Clock:
    """The clocks a guard of these tests reads: wall clock, CPU of the process and of its children,
    the machine's stall, the waits for the other worker."""

    def __init__(self):
        self.wall = self.cpu = self.children = self.stall = self.live = 0.0
        self.shared = wait_guard.SharedWait(wall=lambda: self.wall)

    def advance(self, wall: float = 0.0, cpu: float = 0.0, stall: float = 0.0, children: float = 0.0,
                live: float = 0.0) -> None:
        self.wall += wall
        self.live += live
        self.cpu += cpu
        self.children += children
        self.stall += stall

    def guard(self, limit: float = 2.0) -> wait_guard.WaitGuard:
        return wait_guard.WaitGuard(limit, read=functools.partial(
            wait_guard.clocks, stall=lambda: self.stall, wall=lambda: self.wall, shared=self.shared,
            live=lambda: self.live,
            times=lambda: SimpleNamespace(user=self.cpu, system=0.0, children_user=self.children,
                                          children_system=0.0)))


@pytest.fixture
def clock() -> Clock:
    return Clock()


def _item() -> SimpleNamespace:
    return SimpleNamespace(nodeid="tests/test_x.py::test_waits", stash=pytest.Stash())


def _report(guard, item, when: str, outcome: str = "passed") -> TestReport:
    """The report of one phase as it leaves the guard's makereport hook."""
    make = guard.pytest_runtest_makereport(item, SimpleNamespace(when=when))
    next(make)
    with pytest.raises(StopIteration) as made:
        make.send(TestReport(item.nodeid, ("tests/test_x.py", 0, "test_waits"), {}, outcome, None, when))
    return made.value.value


def _test(guard, clock: Clock, **phases: dict) -> list[TestReport]:
    """One test run through the guard's hooks, the clocks advanced as each phase runs."""
    item = _item()
    next(guard.pytest_runtest_protocol(item, None))
    reports = []
    for when in ("setup", "call", "teardown"):
        phase = dict(phases.get(when, {}))
        outcome = phase.pop("outcome", "passed")
        clock.advance(**phase)
        reports.append(_report(guard, item, when, outcome))
    return reports


def test_a_test_that_sleeps_past_the_limit_fails_naming_the_ways_out(clock):
    setup, call, teardown = _test(clock.guard(), clock, call={"wall": 3.0, "cpu": 0.5})
    assert setup.passed and teardown.passed and call.failed
    message = str(call.longrepr)
    assert "waited 2.5 s" in message and "allows 2 s" in message
    assert "INTEGRATION" in message and "slurm" in message and "deadline()" in message


def test_waits_of_setup_and_teardown_add_up_to_the_tests(clock):
    """A fixture that waits (a server, a scheduler) counts for the test that sets it up or tears it down."""
    reports = _test(clock.guard(), clock, setup={"wall": 1.5}, call={"wall": 1.0, "cpu": 0.2})
    assert [report.outcome for report in reports] == ["passed", "failed", "passed"]
    reports = _test(clock.guard(), clock, setup={"wall": 1.0}, teardown={"wall": 1.5})
    assert [report.outcome for report in reports] == ["passed", "passed", "failed"]
    assert "waited 2.5 s" in str(reports[2].longrepr)


def test_cpu_of_the_test_and_of_its_children_is_no_wait(clock):
    reports = _test(clock.guard(), clock, call={"wall": 9.0, "cpu": 4.0, "children": 4.5})
    assert all(report.passed for report in reports)


def test_cpu_of_a_live_child_the_test_hands_work_to_is_no_wait(clock):
    """A long-lived child the tests wait for (conftest's dry_run_loop) counts with its CPU while it lives."""
    reports = _test(clock.guard(), clock, call={"wall": 5.0, "cpu": 0.5, "live": 4.0})
    assert all(report.passed for report in reports)
    assert _test(clock.guard(), clock, call={"wall": 5.0, "cpu": 0.5, "live": 2.0})[1].failed


def test_the_live_childrens_cpu_is_read_from_proc():
    import os

    own = os.times()  # this process, alive, as /proc/<pid>/stat counts it (clock ticks)
    counted = wait_guard.live_children_cpu({os.getpid()})
    assert counted > 0 and abs(counted - (own.user + own.system)) < 0.1, (counted, own)
    assert wait_guard.live_children_cpu({2 ** 22 + 1}) == 0  # no such process (the kernel's pid_max is 2**22)


def test_a_loaded_machine_is_no_wait(clock):
    """Wall clock the machine spent with tasks waiting for a core or the disk (others' load) does not count."""
    reports = _test(clock.guard(), clock, call={"wall": 12.0, "cpu": 3.0, "stall": 8.5})
    assert all(report.passed for report in reports)


def test_waiting_for_the_other_worker_to_make_the_shared_data_is_no_wait(clock):
    guard, item = clock.guard(), _item()
    next(guard.pytest_runtest_protocol(item, None))
    with clock.shared.waiting():
        clock.advance(wall=20.0)  # the other worker validates the knowledge meanwhile
    clock.advance(wall=2.5, cpu=0.6)
    assert _report(guard, item, "setup").passed and _report(guard, item, "call").passed
    clock.advance(wall=0.2)  # 1.9 s + 0.2 s: the teardown's wait adds to the setup's and call's
    report = _report(guard, item, "teardown")
    assert report.failed and "waited 2.1 s" in str(report.longrepr)


def test_a_failed_test_gets_no_second_failure_for_its_wait(clock):
    reports = _test(clock.guard(), clock, call={"wall": 5.0, "outcome": "failed"})
    assert [report.outcome for report in reports] == ["passed", "failed", "passed"]
    assert reports[1].longrepr is None  # the test's own failure, not the guard's


def _registered(markexpr: str, monkeypatch, limit: str | None = None) -> bool:
    import conftest

    if limit is None:
        monkeypatch.delenv("BIOPLAN_WAIT_LIMIT", raising=False)
    else:
        monkeypatch.setenv("BIOPLAN_WAIT_LIMIT", limit)
    plugins: list = []
    config = SimpleNamespace(pluginmanager=SimpleNamespace(register=lambda plugin, name: plugins.append(plugin)))
    wait_guard.register(config, fast_tier=not conftest._may_select_e2e(markexpr), stall=lambda: 0.0)
    return bool(plugins)


def test_the_guard_is_on_in_the_fast_tier_only(monkeypatch):
    assert _registered("not e2e and not slurm", monkeypatch)
    assert _registered("not e2e", monkeypatch)
    assert not _registered("", monkeypatch)  # the whole suite: integration runs wait by nature
    assert not _registered("e2e", monkeypatch)
    assert not _registered("not slurm", monkeypatch)
    assert not _registered("not e2e and not slurm", monkeypatch, limit="0")
    config = SimpleNamespace(pluginmanager=SimpleNamespace(register=lambda plugin, name: pytest.fail("registered")))
    wait_guard.register(config, fast_tier=True, stall=lambda: None)  # no pressure stall information: off


def test_the_stall_time_is_read_from_the_kernels_pressure_files(tmp_path):
    for kind, total in (("cpu", 1_500_000), ("io", 250_000), ("memory", 0)):
        (tmp_path / kind).write_text(f"some avg10=0.00 avg60=0.00 avg300=0.00 total={total}\n"
                                     "full avg10=0.00 avg60=0.00 avg300=0.00 total=99\n")
    assert wait_guard.stalled(tuple(tmp_path / kind for kind in ("cpu", "io", "memory"))) == pytest.approx(1.75)
    assert wait_guard.stalled((tmp_path / "cpu", tmp_path / "absent")) is None
