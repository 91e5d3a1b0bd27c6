"""Copy the knowledge directories into the wheel.

`ontology/`, `motifs/` and `templates/` sit at the repository root (knowledge is
data, edited without touching code). A wheel must carry them too, so the build
copies them to `bioplan/data/` inside the build tree; `bioplan.paths` looks
there first and falls back to the checkout.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

DATA_DIRS = ("ontology", "motifs", "templates")


class BuildPyWithKnowledge(build_py):
    def run(self):
        super().run()
        root = Path(__file__).parent
        target = Path(self.build_lib) / "bioplan" / "data"
        for name in DATA_DIRS:
            dest = target / name
            if dest.exists():
                shutil.rmtree(dest)
            shutil.copytree(root / name, dest, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


setup(cmdclass={"build_py": BuildPyWithKnowledge})
