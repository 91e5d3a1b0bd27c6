#!/usr/bin/env bash
# Install the real tools that the examples' workflows run (tests/e2e), idempotently.
#
#   bash scripts/install-tools.sh                    # Debian packages only
#   bash scripts/install-tools.sh .venv/bin/python   # and the Python tools into that environment
#
# Debian packages: skipped entirely (no apt-get at all) when every one is installed already, so a
# second run takes well under a second. Python tools: the pinned `tools` extra of pyproject.toml
# (pydeseq2, gseapy, scanpy, igraph, leidenalg, ...), installed with pip into the given Python.
# Emitted workflows keep their per-rule conda envs and containers for users; the tests run the
# tools from PATH. Not packaged in Debian and therefore not used by the examples: ALDEx2,
# clusterProfiler, fgsea, Bracken, VEP (their knowledge entries stay for users' clusters). MACS3 is not
# installed either: it has no Linux wheels on PyPI (pip builds it from source, far beyond CI's budget);
# the examples call peaks with Debian's MACS2 (package `macs`, binary `macs2`), as nf-core/chipseq does.
set -euo pipefail
cd "$(dirname "$0")/.."

# One package per tool the five examples' plans bind (and the aligners/quantifiers the knowledge
# base ranks next, so a request that prefers them runs too).
PACKAGES=(
    samtools bcftools tabix         # BAM/VCF handling, bcftools filter/csq, bgzip
    fastqc fastp                    # read QC, trimming
    rna-star hisat2 subread         # STAR / HISAT2 alignment, featureCounts
    bwa                             # BWA-MEM, the default short-read DNA aligner
    salmon kallisto                 # transcript quantification
    trim-galore                     # Trim Galore (brings cutadapt)
    bowtie2 kraken2                 # host removal, taxonomic classification (kraken2-build)
    snpeff gffread                  # variant annotation from a custom database (GFF3 -> GTF)
    megahit prodigal                # de novo assembly, prokaryotic gene prediction
    seqkit                          # read statistics (seqkit stats)
    stringtie                       # reference-guided transcript assembly
    rsem sortmerna                  # RNA-seq (issue 18, B1): RSEM quantification, SortMeRNA rRNA removal
    picard-tools python3-deeptools  # ChIP-seq: Picard MarkDuplicates, deepTools bamCoverage (with pyBigWig)
    macs                            # ChIP/ATAC-seq peak calling: MACS2 callpeak (binary macs2)
    bedtools                        # ChIP/ATAC-seq: consensus peaks (merge), blacklist filtering (intersect -v)
    r-base-core r-bioc-deseq2       # DESeq2 (Rscript)
    r-bioc-edger                    # edgeR (quasi-likelihood DE, TMM log-CPM; brings limma for limma-voom)
    r-bioc-tximport                 # tximport: transcript estimates (Salmon, kallisto, RSEM) to gene counts
    r-bioc-variantannotation        # real public data for tests/test_real_data.py: 1000 Genomes chr22.vcf.gz
    r-bioc-rtracklayer r-bioc-rsamtools  # real files for tests/test_real_data.py: UCSC tracks (BED, bigWig, ...), TopHat BED, .fai
    r-bioc-summarizedexperiment     # real files for tests/test_real_data.py: a loom file (refused with how to convert)
    htslib-test                     # real files for tests/test_real_data.py: multi-line FASTQ, reads in FASTA, SAM/CRAM
    # variants family (issue 18, B2: tests/e2e/test_variants_extras_run.py): FreeBayes, mosdepth (its
    # Debian build loads libhts.so, which only libhts-dev installs), SnpSift (binary snpSift), CNVkit
    # (binary cnvkit; brings R's DNAcopy)
    freebayes mosdepth libhts-dev snpsift cnvkit
    cutadapt r-bioc-dada2           # amplicon (16S): primer removal, DADA2 filterAndTrim ... assignTaxonomy
    spades metabat                  # metagenomics (issue 18, B4): metaSPAdes; MetaBAT2 + jgi_summarize_bam_contig_depths
    diamond-aligner radiant         # DIAMOND makedb/blastx; Krona (ktImportText)
    minimap2                        # QUAST aligns contigs with it (else it compiles its bundled copy on first use)
    vsearch                         # amplicon: OTU clustering of the ASVs (vsearch --cluster_size)
    mafft fasttree iqtree           # phylogenetics: MAFFT alignment, FastTree / IQ-TREE 2 trees (binary iqtree2)
    bowtie                          # small RNA-seq: Bowtie 1 maps the trimmed reads to the mature miRNAs (bowtie-build)
    plink2 plink1.9                 # GWAS: PLINK 2 QC, PCA and --glm; plink1.9 --simulate makes the e2e cohorts
)
# Installed without their recommended packages: r-bioc-dss recommends Bioconductor's vignette stack
# (BiocStyle, which pulls TeX Live: ~70 packages); the R package itself needs 17 (~30 s with the others).
LEAN_PACKAGES=(
    r-bioc-dss                      # differential methylation (DSS DMLtest/callDMR) on Bismark coverage files
)

missing=()
for pkg in "${PACKAGES[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
    [ "$status" = installed ] || missing+=("$pkg")
done
missing_lean=()
for pkg in "${LEAN_PACKAGES[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
    [ "$status" = installed ] || missing_lean+=("$pkg")
done

if [ ${#missing[@]} -eq 0 ] && [ ${#missing_lean[@]} -eq 0 ]; then
    echo "install-tools: all $(( ${#PACKAGES[@]} + ${#LEAN_PACKAGES[@]} )) Debian packages present"
else
    echo "install-tools: installing ${missing[*]} ${missing_lean[*]}"
    sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || { echo "install-tools: need root (or sudo) for apt-get" >&2; exit 1; }
        sudo=(sudo)
    fi
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 update -qq
    if [ ${#missing[@]} -gt 0 ]; then
        "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${missing[@]}"
    fi
    if [ ${#missing_lean[@]} -gt 0 ]; then
        "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing_lean[@]}"
    fi
fi

# The binaries the workflows call, so a package that installs them elsewhere is caught here.
for bin in samtools bcftools bgzip tabix fastqc fastp STAR hisat2 hisat2-build featureCounts salmon kallisto \
           trim_galore cutadapt bwa bowtie2 bowtie2-build kraken2 kraken2-build snpEff gffread megahit prodigal seqkit stringtie \
           PicardCommandLine bamCoverage macs2 rsem-prepare-reference rsem-calculate-expression sortmerna \
           freebayes mosdepth snpSift cnvkit vsearch \
           Rscript; do
    command -v "$bin" >/dev/null || { echo "install-tools: $bin not on PATH after install" >&2; exit 1; }
done
# (found, not loaded: loading DESeq2 takes ~10 s)
Rscript -e 'quit(status = !nzchar(system.file(package = "DESeq2")))' >/dev/null 2>&1 \
    || { echo "install-tools: the R package DESeq2 is not installed" >&2; exit 1; }
Rscript -e 'quit(status = !nzchar(system.file(package = "dada2")))' >/dev/null 2>&1 \
    || { echo "install-tools: the R package dada2 is not installed" >&2; exit 1; }
Rscript -e 'quit(status = !nzchar(system.file(package = "DSS")))' >/dev/null 2>&1 \
    || { echo "install-tools: the R package DSS is not installed" >&2; exit 1; }

if [ $# -ge 1 ]; then
    python=$1
    if "$python" - <<'EOF' 2>/dev/null
import importlib.metadata as md, re, sys, tomllib
pins = tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["tools"]
for pin in pins:
    name, version = re.fullmatch(r"([A-Za-z0-9_.-]+)==(\S+)", pin).groups()
    if md.version(name) != version:
        sys.exit(1)
EOF
    then
        echo "install-tools: Python tools present in $python"
    else
        echo "install-tools: installing the Python tools (the pinned .[tools] extra) into $python"
        # the extra's pins themselves: installs the tools without reinstalling bioplan
        mapfile -t pins < <("$python" -c 'import tomllib; print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["tools"]))')
        "$python" -m pip install --quiet "${pins[@]}"
    fi
    # UMI-tools (umi_tools extract/dedup; ontology/tools/umitools_*.yaml pin 1.1.6) is not in the extra: its
    # sdist's setup.py downloads setuptools through ez_setup in pip's isolated build environment (no
    # wheel on PyPI), so it is built here against the environment's own setuptools and pysam (its C
    # sources come generated).
    if [ "$("$python" -c 'import importlib.metadata as m; print(m.version("umi_tools"))' 2>/dev/null)" != 1.1.6 ]; then
        echo "install-tools: installing UMI-tools 1.1.6 into $python"
        "$python" -c 'import setuptools' 2>/dev/null || "$python" -m pip install --quiet setuptools
        # Without build isolation the sdist is built by the venv's own setuptools, which before 70.1
        # (a Python 3.11 venv ships 65.5) has no bdist_wheel unless the wheel package is there.
        "$python" -c 'import setuptools.command.bdist_wheel' 2>/dev/null \
            || "$python" -c 'import wheel' 2>/dev/null \
            || "$python" -m pip install --quiet wheel==0.45.1
        "$python" -m pip install --quiet --no-build-isolation umi_tools==1.1.6
    fi
fi
