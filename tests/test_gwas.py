"""Genome-wide association studies: a PLINK fileset (.bed/.bim/.fam, .pgen/.pvar/.psam) and a phenotype table are
planned as PLINK 2 QC, LD pruning and PCA, --glm (logistic for a binary trait, linear for a quantitative one) and
Manhattan/QQ plots; the settings an expert states are set; the tools and analyses bioplan lacks are refused by name.
Planning, sniffing and the step scripts on tiny inputs (no PLINK run): the runs are tests/e2e/test_gwas_run.py."""

from __future__ import annotations

import base64
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from bioplan.codegen.ir import synthesize
from bioplan.compile import plan_request
from bioplan.errors import BioplanError
from bioplan.request.sniff import sniff_file
from bioplan.request.sniffers.genotypes import trait_type
from test_step_scripts import step  # noqa: F401  (the fixture that runs a step script in-process)

SCRIPTS = Path(__file__).resolve().parent.parent / "templates" / "scripts"
REAL = Path(__file__).parent / "data" / "real_round4" / "snpstats"  # r-bioc-snpstats' example fileset (real)
# plink1.9 --simulate (20 individuals x 8 SNPs, --seed 5): the dev set's fixture
BED = base64.b64decode("bBsBj/7Kyuqu7rq6qqu7y/v/6riri4ysMu67/Pv+/P+7L6/rqq//i/q/uw==")
GWAS = "run a GWAS: QC with MAF > 0.01 and HWE p < 1e-6, 10 PCs as covariates, Manhattan and QQ plots"


def _cohort(folder: Path, trait: str = "binary", fids: bool = True) -> list[str]:
    """A PLINK 1 fileset of 20 individuals and a phenotype table (0/1 case-control, or a height)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "cohort.bed").write_bytes(BED)
    (folder / "cohort.bim").write_text("".join(f"1\tsnp{i}\t0\t{i + 1}\tA\tG\n" for i in range(8)))
    (folder / "cohort.fam").write_text("".join(f"per{i} per{i} 0 0 1 -9\n" for i in range(20)))
    rng = random.Random(1)
    values = [str(i % 2) if trait == "binary" else f"{rng.gauss(170, 8):.1f}" for i in range(20)]
    header = ("FID\tIID\t" if fids else "#IID\t") + ("case_status" if trait == "binary" else "height") + "\tage\n"
    (folder / "pheno.tsv").write_text(header + "".join(
        (f"per{i}\tper{i}\t" if fids else f"per{i}\t") + f"{v}\t{30 + i}\n" for i, v in enumerate(values)))
    return [str(folder / "cohort.bed"), str(folder / "pheno.tsv")]


def _ops(result) -> list[str]:
    return [s.operation for s in result.plans[0].steps]


def test_a_gwas_is_qc_pca_association_and_plots(knowledge, tmp_path):
    result = plan_request(GWAS, _cohort(tmp_path), knowledge=knowledge)
    assert [(s.operation, s.tool) for s in result.plans[0].steps] == [
        ("genotype_qc", "plink2_qc"), ("genotype_pca", "plink2_pca"), ("association_test", "plink2_glm"),
        ("gwas_plotting", "gwas_plots")]
    assert "binary_trait" in result.spec.constraint_ids
    assert "read_qc" not in _ops(result) and "sample_pca" not in _ops(result)  # QC and PCA of genotypes


@pytest.mark.parametrize("query", [
    "QC the genotypes with PLINK and compute the principal components",
    "LD pruning and PCA of the genotypes for population structure",
    "用PLINK对基因型数据做质控，再计算主成分看群体结构",
])
def test_pca_of_genotypes_is_population_structure_not_sample_pca(knowledge, tmp_path, query):
    result = plan_request(query, _cohort(tmp_path)[:1], knowledge=knowledge)
    assert _ops(result) == ["genotype_qc", "genotype_pca"]
    assert result.spec.unrecognized == ()  # every word understood: no "principal", "components" left over


def test_the_settings_are_set_on_the_tools_that_take_them(knowledge, tmp_path):
    result = plan_request(GWAS + ", --geno 0.05 and --mind 0.03", _cohort(tmp_path), knowledge=knowledge)
    workflow = synthesize(knowledge, result.spec, result.plans[0], workdir=str(tmp_path / "out"))
    qc = workflow.params["plink2_qc"]
    assert (qc["maf"], qc["hwe"], qc["geno"], qc["mind"]) == (0.01, 1e-6, 0.05, 0.03)
    assert workflow.params["plink2_pca"]["n_pcs"] == workflow.params["plink2_glm"]["n_pcs"] == 10
    assert workflow.params["plink2_glm"]["trait"] == "binary"  # from the table's 0/1 column


@pytest.mark.parametrize("query", ["plink分析100个性状的批量gwas分析", "GWAS of all the phenotypes in the table"])
def test_several_phenotypes_are_said_as_not_honoured(knowledge, tmp_path, query):
    """One phenotype is tested (the first column after the ids, or the configured one): a request for many says so."""
    result = plan_request(query, _cohort(tmp_path), knowledge=knowledge)
    assert "association_test" in _ops(result)
    assert any(w.startswith("not honoured: several phenotypes") for w in result.spec.warnings)
    assert result.spec.unrecognized == ()


def test_a_quantitative_table_gets_linear_regression(knowledge, tmp_path):
    result = plan_request("genome-wide association study with PLINK 2", _cohort(tmp_path, "height"),
                          knowledge=knowledge)
    assert "quantitative_trait" in result.spec.constraint_ids
    workflow = synthesize(knowledge, result.spec, result.plans[0], workdir=str(tmp_path / "out"))
    assert workflow.params["plink2_glm"]["trait"] == "quantitative"


def test_a_request_that_disagrees_with_the_table_is_refused(knowledge, tmp_path):
    with pytest.raises(BioplanError) as exc:
        plan_request("case-control GWAS with logistic regression", _cohort(tmp_path, "height"), knowledge=knowledge)
    assert exc.value.code == "constraint_violation" and "Quantitative trait" in exc.value.message
    assert "reads" not in exc.value.message.split("(")[0]  # said of the inputs, not of reads


def test_the_association_is_guarded_by_the_phenotype_check(knowledge, tmp_path):
    result = plan_request(GWAS, _cohort(tmp_path), knowledge=knowledge)
    test = next(s for s in result.plans[0].steps if s.operation == "association_test")
    assert "requires_phenotyped_genotypes" in test.preconditions


@pytest.mark.parametrize("query, code, named", [
    ("run regenie on these genotypes", "unknown_tool", "PLINK 2 --glm"),
    ("GWAS with SAIGE", "unknown_tool", "PLINK 2 --glm"),
    ("estimate the SNP heritability with GCTA", "unsupported_analysis", "heritability"),
    ("compute polygenic risk scores", "unsupported_analysis", "polygenic"),
    ("fine-map the GWAS loci with SuSiE", "unsupported_analysis", "fine-mapping"),
    ("map cis-eQTLs", "unsupported_analysis", "QTL"),
])
def test_what_bioplan_lacks_is_refused_by_name(knowledge, tmp_path, query, code, named):
    with pytest.raises(BioplanError) as exc:
        plan_request(query, _cohort(tmp_path), knowledge=knowledge)
    assert exc.value.code == code and named in exc.value.message, exc.value.message


def test_regenie_substituted_runs_plink2_glm(knowledge, tmp_path):
    result = plan_request("run regenie on these genotypes", _cohort(tmp_path), knowledge=knowledge, substitute=True)
    assert "plink2_glm" in [s.tool for s in result.plans[0].steps]
    assert any("regenie" in d.lower() for d in result.spec.deviations)


def test_a_vcf_of_genotypes_is_read_into_plink_first(knowledge, tmp_path):
    _, table = _cohort(tmp_path)
    vcf = tmp_path / "cohort.vcf"
    vcf.write_text("##fileformat=VCFv4.2\n##contig=<ID=1>\n##FORMAT=<ID=GT,Number=1,Type=String,Description=\"GT\">\n"
                   "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\t" + "\t".join(f"per{i}" for i in range(20))
                   + "\n" + "".join(f"1\t{p}\tsnp{p}\tA\tG\t.\t.\t.\tGT\t" + "\t".join("0/1" for _ in range(20)) + "\n"
                                     for p in range(1, 6)))
    result = plan_request(GWAS, [str(vcf), table], knowledge=knowledge)
    assert [s.tool for s in result.plans[0].steps][:2] == ["plink2_import", "plink2_qc"]


@pytest.mark.parametrize("target, files", [
    ("snakemake", ["workflow/rules/genotype_qc.smk", "workflow/rules/association_test.smk",
                   "workflow/scripts/plink2_gwas.awk", "workflow/scripts/check_gwas_samples.py",
                   "workflow/scripts/gwas_plots.py"]),
    ("nextflow", ["modules/local/plink2/qc/main.nf", "modules/local/plink2/glm/main.nf", "bin/plink2_gwas.awk",
                  "bin/check_gwas_samples.py", "bin/gwas_plots.py"]),
])
def test_both_targets_are_emitted(knowledge, tmp_path, target, files):
    """The templates render (no run, no dry run: the e2e module runs them); the settings reach the config."""
    from bioplan.compile import compile_request

    out = tmp_path / target
    compile_request(GWAS, _cohort(tmp_path / "data"), str(out / ("main.nf" if target == "nextflow" else "Snakefile")),
                    target=target, validate=False, knowledge=knowledge)
    missing = [f for f in files if not (out / f).is_file()]
    assert not missing, sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    if target == "snakemake":
        assert "hwe: 1.0e-06" in (out / "config/config.yaml").read_text()


# ------------------------------------------------------------------------------------------------ sniffing
def test_a_real_plink_fileset_is_read_through_its_bed(knowledge):
    """r-bioc-snpstats' sample.bed (120 individuals, 20 SNPs) with its .bim/.fam beside it."""
    f = sniff_file(str(REAL / "sample.bed"), {}, knowledge.formats)
    assert (f.datatype, f.format) == ("genotype_set", "plink_bed")
    assert (f.fact("n_samples"), f.fact("n_variants")) == (120, 20)


def test_a_bed_without_its_companions_is_refused_naming_them(knowledge, tmp_path):
    (tmp_path / "lonely.bed").write_bytes(BED)
    with pytest.raises(BioplanError) as exc:
        sniff_file(str(tmp_path / "lonely.bed"), {}, knowledge.formats)
    assert "lonely.bim" in exc.value.message and "lonely.fam" in exc.value.message


def test_a_pgen_fileset_is_read(knowledge, tmp_path):
    (tmp_path / "c.pgen").write_bytes(b"\x6c\x1b\x10" + bytes(20))
    (tmp_path / "c.pvar").write_text("#CHROM\tPOS\tID\tREF\tALT\n1\t1\tsnp1\tA\tG\n")
    (tmp_path / "c.psam").write_text("#IID\tSEX\n" + "".join(f"s{i}\t1\n" for i in range(12)))
    f = sniff_file(str(tmp_path / "c.pgen"), {}, knowledge.formats)
    assert (f.datatype, f.format, f.fact("n_samples")) == ("genotype_set", "pgen", 12)


def test_the_companions_given_too_are_read_as_parts(knowledge, tmp_path):
    inputs = _cohort(tmp_path)
    with_parts = [inputs[0], str(tmp_path / "cohort.bim"), str(tmp_path / "cohort.fam"), inputs[1]]
    result = plan_request(GWAS, with_parts, knowledge=knowledge)
    assert sorted(result.spec.input_types) == ["genotype_set", "phenotype_table"]
    assert any("cohort.bim is read as part of the PLINK fileset" in w for w in result.spec.warnings)


@pytest.mark.parametrize("values, kind", [
    (["1", "2", "2", "-9"], "binary"), (["0", "1", "NA"], "binary"), (["case", "control"], "binary"),
    (["0", "1", "2", "2"], "binary"),  # PLINK's coding: 0 missing
    (["170.2", "165", "181.5"], "quantitative"), (["2", "2"], None), (["tall", "short"], None), (["NA"], None),
])
def test_the_trait_type_of_a_phenotype_column(values, kind):
    assert trait_type(values) == kind


def test_a_phenotype_table_is_read_with_its_trait(knowledge, tmp_path):
    _, table = _cohort(tmp_path, fids=False)
    f = sniff_file(table, {}, knowledge.formats)
    assert (f.datatype, f.fact("trait_type"), f.fact("phenotype_columns")) == (
        "phenotype_table", "binary", ["case_status", "age"])


# ------------------------------------------------------------------------------------------------ step scripts
def _awk(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["awk", "-f", str(SCRIPTS / "plink2_gwas.awk"), *args], capture_output=True, text=True)


@pytest.mark.skipif(shutil.which("awk") is None, reason="no awk")
@pytest.mark.parametrize("column, want, rows, kind, coded", [
    ("", "auto", ["a\ta\t0", "b\tb\t1"], "binary", ["1", "2"]),  # 0/1 -> PLINK's 1 control / 2 case
    ("t", "binary", ["a\ta\t2", "b\tb\t1", "c\tc\t0"], "binary", ["2", "1", "NA"]),  # 0 is missing in 1/2
    ("t", "auto", ["a\ta\tcase", "b\tb\tcontrol"], "binary", ["2", "1"]),
    ("", "quantitative", ["a\ta\t1.5", "b\tb\t-9", "c\tc\t2.25"], "quantitative", ["1.5", "NA", "2.25"]),
])
def test_the_phenotype_is_recoded_for_plink(tmp_path, column, want, rows, kind, coded):
    table = tmp_path / "t.tsv"
    table.write_text("FID\tIID\tt\tage\n" + "".join(r + "\t40\n" for r in rows))
    proc = _awk("mode=pheno", f"column={column}", f"want={want}", f"out={tmp_path / 'p.tsv'}", str(table))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == kind
    written = [line.split("\t") for line in (tmp_path / "p.tsv").read_text().splitlines()]
    assert written[0] == ["#FID", "IID", "t"] and [r[2] for r in written[1:]] == coded


@pytest.mark.skipif(shutil.which("awk") is None, reason="no awk")
@pytest.mark.parametrize("header, rows, column, want, said", [
    ("FID\tIID\tt", ["a\ta\t1"], "bmi", "auto", "'bmi' is not in"),
    ("sample\tt", ["a\t1"], "", "auto", "no PLINK id columns"),
    ("IID\tt", ["a\t1.5", "b\t2.5", "c\t3.5"], "", "binary", "the plan tests a binary trait"),
    ("IID\tt", ["a\t2", "b\t2"], "", "auto", "0 controls"),
    ("IID\tt", ["a\tNA", "b\t-9"], "", "auto", "has no values"),
])
def test_a_phenotype_column_the_test_cannot_use_stops_the_step(tmp_path, header, rows, column, want, said):
    table = tmp_path / "t.tsv"
    table.write_text(header + "\n" + "\n".join(rows) + "\n")
    proc = _awk("mode=pheno", f"column={column}", f"want={want}", f"out={tmp_path / 'p.tsv'}", str(table))
    assert proc.returncode == 1 and said in proc.stderr, proc.stderr


@pytest.mark.skipif(shutil.which("awk") is None, reason="no awk")
def test_the_fids_are_dropped_for_genotypes_without_them(tmp_path):
    """A VCF's individuals have IIDs alone: PLINK 2 matches a table of FIDs to none of them."""
    table = tmp_path / "t.tsv"
    table.write_text("FID\tIID\tt\nf1\ta\t1\nf2\tb\t2\n")
    proc = _awk("mode=pheno", "column=", "want=auto", "iid_only=1", f"out={tmp_path / 'p.tsv'}", str(table))
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "p.tsv").read_text() == "#IID\tt\na\t1\nb\t2\n"


@pytest.mark.skipif(shutil.which("awk") is None, reason="no awk")
def test_the_covariates_are_the_pcs_and_the_table_columns(tmp_path):
    table = tmp_path / "t.tsv"
    table.write_text("FID\tIID\tt\tage\tbatch\na\ta\t1\t40\tx\nb\tb\t2\tNA\ty\nc\tc\t1\t50\tx\n")
    pcs = tmp_path / "p.eigenvec"
    pcs.write_text("#FID\tIID\tPC1\tPC2\tPC3\na\ta\t0.1\t0.2\t0.3\nb\tb\t0.4\t0.5\t0.6\n")  # c was removed by QC
    proc = _awk("mode=covar", "column=t", "covariates=", "n_pcs=2", str(pcs), str(table))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["#FID\tIID\tPC1\tPC2\tage\tbatch", "a\ta\t0.1\t0.2\t40\tx",
                                        "b\tb\t0.4\t0.5\tNA\ty"]
    proc = _awk("mode=covar", "column=t", "covariates=none", "n_pcs=4", str(pcs), str(table))
    assert proc.returncode == 1 and "has 3 components; 4 were asked" in proc.stderr


def _check(step, tmp_path, table_text, psam_text):  # noqa: F811  (step: the fixture)
    (tmp_path / "qc.pgen").write_bytes(b"\x6c\x1b\x10")
    (tmp_path / "qc.psam").write_text(psam_text)
    table = tmp_path / "pheno.tsv"
    table.write_text(table_text)
    params = {"constraint": "requires_phenotyped_genotypes", "guarded_step": "association_test",
              "datatypes": {"genotypes": "qc_genotype_set", "phenotypes": "phenotype_table"}}
    return step("check_gwas_samples.py", {"genotypes": tmp_path / "qc.pgen", "phenotypes": table},
                {"ok": tmp_path / "ok"}, params)


PSAM = "#FID\tIID\tSEX\n" + "".join(f"f{i}\ts{i}\t1\n" for i in range(12))


def test_the_check_passes_a_table_of_the_genotyped(step, tmp_path):  # noqa: F811
    table = "FID\tIID\ty\n" + "".join(f"f{i}\ts{i}\t{i % 2}\n" for i in range(11))
    run = _check(step, tmp_path, table, PSAM)
    assert run.code == 0, run.log
    assert "11 of 12 genotyped individuals" in (tmp_path / "ok").read_text()
    assert "f11 s11" in run.log  # the one without a phenotype row is named


@pytest.mark.parametrize("table, said", [
    ("FID\tIID\ty\n" + "".join(f"x{i}\ts{i}\t1\n" for i in range(12)), "0 of the 12 genotyped"),  # FIDs differ
    ("sample\ty\ns0\t1\n", "no PLINK id columns"),
    ("IID\ty\n" + "".join(f"s{i}\tNA\n" for i in range(12)), "no value in any column"),
])
def test_the_check_stops_a_table_plink_cannot_match(step, tmp_path, table, said):  # noqa: F811
    run = _check(step, tmp_path, table, PSAM)
    assert run.code == 1 and said in run.terminal, run.terminal


def test_the_plots_and_lambda_of_the_association_results(step, tmp_path):  # noqa: F811
    """Uniform p-values over three chromosomes (X among them) give lambda 1; the planted hit heads the top list."""
    rows = ["#CHROM\tPOS\tID\tREF\tALT\tA1\tTEST\tOBS_CT\tOR\tLOG(OR)_SE\tZ_STAT\tP\tERRCODE"]
    n = 301
    for i in range(n):
        chrom = ("1", "2", "X")[i % 3]
        p = 1e-12 if i == 150 else (i + 0.5) / n
        rows.append(f"{chrom}\t{1000 + i}\tv{i}\tA\tG\tG\tADD\t500\t1.1\t0.1\t1\t{p:.6g}\t.")
    rows.append("1\t5\tcov\tA\tG\tG\tPC1\t500\t1\t0.1\t1\t1e-30\t.")  # a covariate's row: not a variant's test
    table = tmp_path / "assoc.glm.tsv"
    table.write_text("\n".join(rows) + "\n")
    outputs = {"summary": tmp_path / "summary.tsv", "manhattan": tmp_path / "m.png", "qq": tmp_path / "q.png"}
    run = step("gwas_plots.py", {"results": table}, outputs, {"genome_wide": 5e-8, "suggestive": 1e-5, "top": 3})
    assert run.code == 0, run.log
    text = outputs["summary"].read_text()
    stats = dict(line.split("\t") for line in text.split("\n\n")[0].splitlines()[1:])
    assert abs(float(stats["lambda_gc"]) - 1.0) < 0.02 and stats["variants_tested"] == str(n)
    assert stats["variants_p_below_5e-08"] == "1"
    top = text.split("\n\n")[1].splitlines()
    assert top[1].split("\t")[:4] == ["1", "1", "1150", "v150"] and len(top) == 4
    assert all(outputs[k].read_bytes()[:4] == b"\x89PNG" for k in ("manhattan", "qq"))
