"""A tool's report given beside the data it describes (featureCounts' counts.txt.summary beside counts.txt)
is read as a QC report and said to be unused by a differential expression, not refused; alone it is still
refused, saying to give the counts."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bioplan.compile import plan_request
from bioplan.errors import UnreadableInputError
from bioplan.knowledge.load import load_knowledge

SAMPLES = ["c1", "c2", "c3", "t1", "t2", "t3"]


@pytest.fixture(scope="module")
def featurecounts(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("featurecounts")
    rng = random.Random(3)
    with open(d / "counts.txt", "w") as fh:
        fh.write('# Program:featureCounts v2.0.3; Command:"featureCounts" "-o" "counts.txt"\n')
        fh.write("Geneid\tChr\tStart\tEnd\tStrand\tLength\t" + "\t".join(SAMPLES) + "\n")
        for g in range(200):
            counts = "\t".join(str(rng.randint(0, 500)) for _ in SAMPLES)
            fh.write(f"ENSG{g:011d}\tchr1\t{100 + g * 1000}\t{900 + g * 1000}\t+\t801\t{counts}\n")
    with open(d / "counts.txt.summary", "w") as fh:
        fh.write("Status\t" + "\t".join(SAMPLES) + "\n")
        for status in ("Assigned", "Unassigned_Unmapped", "Unassigned_NoFeatures"):
            fh.write(status + "\t" + "\t".join(str(rng.randint(1000, 5000)) for _ in SAMPLES) + "\n")
    (d / "samples.tsv").write_text("sample\tcondition\n" + "".join(
        f"{s}\t{'control' if s[0] == 'c' else 'treated'}\n" for s in SAMPLES))
    return d


def test_featurecounts_summary_beside_its_counts_is_unused_qc(featurecounts):
    d = featurecounts
    knowledge = load_knowledge()
    result = plan_request("differential expression between treated and control",
                          [str(d / "counts.txt"), str(d / "counts.txt.summary"), str(d / "samples.tsv")], knowledge)
    assert [s.tool for s in result.plans[0].steps] == ["deseq2"], result.plans[0].steps
    summary = next(i for i in result.spec.inputs if i.path.endswith(".summary"))
    assert summary.datatype == "qc_report" and any("given beside the data it describes" in e for e in summary.evidence)
    assert any("counts.txt.summary (qc_report) is not used" in w for w in result.spec.warnings), result.spec.warnings
    with pytest.raises(UnreadableInputError) as err:
        plan_request("differential expression between treated and control",
                     [str(d / "counts.txt.summary"), str(d / "samples.tsv")], knowledge)
    assert "give the counts table featureCounts wrote beside it" in " ".join(err.value.hints)
