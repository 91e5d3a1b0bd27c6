"""Attacks round 4: --partition and --account with a space or a leading '-'.

Nextflow writes `process.queue` and `process.clusterOptions` onto `#SBATCH` lines of each job script,
and sbatch reads every whitespace-separated word of such a line as another option: `--account 'lab -o
/home/u/.bashrc'` made sbatch write each job's output over the user's .bashrc, `--partition 'gpu
--export=ALL,LD_PRELOAD=/tmp/x.so'` loaded a library into every job. No quoting survives an `#SBATCH`
line, and no SLURM partition or account name holds a space or starts with '-' (`sinfo`, `sacctmgr`),
so both are refused (invalid_option) by both targets; Snakemake's executor quoted them already.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bioplan.codegen import escape
from bioplan.codegen.generator import EmitOptions
from bioplan.errors import InvalidOptionError

# 50 examples in the fast tier, 2,000 under CI=true (BIOPLAN_PROPERTY_EXAMPLES overrides)
EXAMPLES = int(os.environ.get("BIOPLAN_PROPERTY_EXAMPLES", 2000 if os.environ.get("CI") == "true" else 50))
INJECTIONS = ["lab -o /home/u/.bashrc", "gpu --export=ALL,LD_PRELOAD=/tmp/x.so", "gpu\u00a0--uid=0", "-o/tmp/x",
              "--chdir=/", "gpu\u3000-x"]


@pytest.mark.parametrize("value", INJECTIONS)
@pytest.mark.parametrize("option", ["partition", "account"])
def test_a_slurm_name_that_would_add_sbatch_options_is_refused(option, value):
    with pytest.raises(InvalidOptionError) as err:
        escape.refuse_broken_slurm_settings(EmitOptions(**{option: value}))
    assert f"--{option}" in err.value.message and repr(value) in err.value.message
    assert any("sinfo" in h or "sacctmgr" in h for h in err.value.hints)


@pytest.mark.parametrize("value", ["gpu", "gpu,cpu", "short-q", "lab_01", "proj.x+1", "a=b"])
def test_real_slurm_names_are_accepted(value):
    escape.refuse_broken_slurm_settings(EmitOptions(partition=value, account=value))


@settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(min_size=1, max_size=20))
def test_property_an_accepted_slurm_name_is_one_sbatch_word(value):
    try:
        escape.refuse_broken_slurm_settings(EmitOptions(partition=value, account=value))
    except InvalidOptionError:
        return
    assert value.split() == [value] and not value.startswith("-") and value.isprintable()
