"""One error hierarchy with stable codes.

    BioplanError                      (exit status 2; `code` is a public contract)
    ├── EmptyQueryError               empty_query
    ├── NoOperationRecognizedError    no_operation_recognized
    ├── UnsatisfiableError            unsatisfiable
    ├── ConstraintViolationError      constraint_violation
    ├── UnreadableInputError          unreadable_input
    ├── AmbiguousInputError           ambiguous_input
    ├── InvalidKnowledgeError         invalid_knowledge
    ├── InvalidOptionError            invalid_option
    ├── ClusterTooSmallError          cluster_too_small
    ├── UnknownToolError              unknown_tool
    ├── UnsupportedAnalysisError      unsupported_analysis
    ├── PartiallyUnderstoodError      partially_understood
    ├── OutputExistsError             output_exists
    ├── OutputUnwritableError         output_unwritable
    ├── TargetUnsupportedError        target_unsupported
    └── ValidationFailedError         validation_failed

Every error carries a message that names what blocked the request, `hints` that
say what would unblock it ("to resolve, ..."), and machine-readable `details`.
The codes, and the exit statuses, are documented in `docs/plan-report.md`
(tests/test_docs.py checks that it lists exactly these codes).

`Interrupted` is not an error: it is raised in place of SIGINT, SIGTERM and SIGHUP
so that every `finally` runs (scratch directories removed, the child `snakemake -n`
stopped) before the CLI exits with 128 + the signal number.
"""

from __future__ import annotations

from typing import Any


def one_line(text: str) -> str:
    """`text` as one line of what bioplan prints: its line breaks shown as `\\u000a`, as `request.text.terminal_safe`
    shows the other control characters (which it escapes everywhere; a newline it keeps, bioplan's own lines being
    made of it). Each error, hint, warning and report field goes through here, so a file name, request or column
    name holding `\\n  hint: run ...` cannot print a line that reads as bioplan's (tests/test_attacks_round9.py)."""
    return text.replace("\n", "\\u000a") if "\n" in text else text


class BioplanError(Exception):
    code: str = "bioplan_error"
    exit_status: int = 2

    def __init__(self, message: str, hints: list[str] | None = None, details: dict[str, Any] | None = None,
                 *, listed: bool = False):
        super().__init__(message)
        self.message = message
        self.hints = list(hints or [])
        self.details = dict(details or {})
        # a heading and a list, one item a line (each item made `one_line` where it is listed): printed as lines
        self.listed = listed

    def to_json(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message, "hints": self.hints, "details": self.details}}

    def render(self) -> str:
        lines = [f"error[{self.code}]: {self.message if self.listed else one_line(self.message)}"]
        lines += [f"  hint: {one_line(h)}" for h in self.hints]
        return "\n".join(lines)


class EmptyQueryError(BioplanError):
    code = "empty_query"


class NoOperationRecognizedError(BioplanError):
    code = "no_operation_recognized"


class UnsatisfiableError(BioplanError):
    code = "unsatisfiable"


class ConstraintViolationError(BioplanError):
    code = "constraint_violation"


class UnreadableInputError(BioplanError):
    code = "unreadable_input"


class AmbiguousInputError(BioplanError):
    code = "ambiguous_input"


class InvalidKnowledgeError(BioplanError):
    code = "invalid_knowledge"

    def __init__(self, problems: list[str], hints: list[str] | None = None):
        shown = problems[:20]
        more = f"\n  ... and {len(problems) - 20} more" if len(problems) > 20 else ""
        message = f"the knowledge base has {len(problems)} problem(s):\n  " + "\n  ".join(map(one_line, shown)) + more
        super().__init__(message, hints or ["fix the listed files; each problem names its file and key path"],
                         {"problems": problems}, listed=True)


class InvalidOptionError(BioplanError):
    """An option's value is outside what it can be (e.g. `compile --max-threads 0`)."""

    code = "invalid_option"


class ClusterTooSmallError(BioplanError):
    """A step needs more memory than one node of the cluster offers (compile --max-mem-mb, or the
    partition's nodes as sinfo reports them): capped, its jobs would be killed for memory."""

    code = "cluster_too_small"


class UnknownToolError(BioplanError):
    """The request names a tool the knowledge base does not have: refused by name, never swapped."""

    code = "unknown_tool"


class UnsupportedAnalysisError(BioplanError):
    """The request asks for an analysis family bioplan does not do yet: refused, never dropped."""

    code = "unsupported_analysis"


class PartiallyUnderstoodError(BioplanError):
    """An instruction of the request was not understood at all: planning the rest would drop it."""

    code = "partially_understood"


class OutputExistsError(BioplanError):
    code = "output_exists"


class OutputUnwritableError(BioplanError):
    """`-o` cannot hold the workflow: a path through a regular file, under /proc or /sys, on a
    read-only file system, or through a symlink that leads out of the output directory."""

    code = "output_unwritable"


class TargetUnsupportedError(BioplanError):
    code = "target_unsupported"


class ValidationFailedError(BioplanError):
    code = "validation_failed"


ERROR_CODES = tuple(
    cls.code
    for cls in (
        EmptyQueryError,
        NoOperationRecognizedError,
        UnsatisfiableError,
        ConstraintViolationError,
        UnreadableInputError,
        AmbiguousInputError,
        InvalidKnowledgeError,
        InvalidOptionError,
        ClusterTooSmallError,
        UnknownToolError,
        UnsupportedAnalysisError,
        PartiallyUnderstoodError,
        OutputExistsError,
        OutputUnwritableError,
        TargetUnsupportedError,
        ValidationFailedError,
    )
)


class Interrupted(BaseException):
    """A terminating signal arrived; a BaseException so that `except Exception` never swallows it."""

    def __init__(self, signum: int):
        super().__init__(f"interrupted by signal {signum}")
        self.signum = signum

    @property
    def exit_status(self) -> int:
        return 128 + self.signum
