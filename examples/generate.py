#!/usr/bin/env python3
"""Tiny synthetic data sets with planted signals, for bioplan's examples and tests.

    python examples/generate.py OUTDIR [--only CLASS ...]

The generator is `bioplan.evaluate.example_data` (compiler/bioplan/evaluate/example_data.py), inside the
package so that an installed bioplan carries it for `bioplan eval`; this file is the checkout's
entry to it. It loads that module by path, so it needs only numpy and h5py, not an
installed bioplan. CLASSES, generate() and main() are the module's.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_MODULE = Path(__file__).resolve().parents[1] / "compiler" / "bioplan" / "evaluate" / "example_data.py"


def _load_generator():
    spec = importlib.util.spec_from_file_location("bioplan_example_data", _MODULE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


_generator = _load_generator()
CLASSES = _generator.CLASSES
generate = _generator.generate
main = _generator.main

if __name__ == "__main__":
    sys.exit(main())
