#!/bin/sh
# Prints the sample name (the SM tag of the first @RG line) of a BAM, for the steps that must tell
# the matched normal from the tumours by sample name (Strelka2 somatic, CNVkit,
# CalculateContamination) in images without samtools.
#
#   sh bam_sample_name.sh sample.bam
#
# A BAM is BGZF, which gzip reads; its header text (with the @RG lines) comes first, so the first
# MiB of the decompressed stream holds it. Exits 1 with a message when the BAM has no SM tag.
set -u
bam=$1
# gzip stops with SIGPIPE once head has read enough: its status is not the answer, the output is
sample=$( { gzip -cd -- "$bam" 2>/dev/null || true; } | head -c 1048576 | tr -c '[:print:]\t' '\n' \
    | grep -a '^@RG' | tr '\t' '\n' | sed -n 's/^SM://p' | head -n 1)
if [ -z "$sample" ]; then
    echo "bam_sample_name.sh: $bam has no @RG line with an SM tag (add read groups when aligning)" >&2
    exit 1
fi
# the name becomes a file name ($tmp/pileups/$sample.table) and a tool's argument: one that would leave
# its folder or read as an option is refused, as bioplan refuses it on input (codegen/ir.py)
case $sample in
    */* | -* | . | ..)
        echo "bam_sample_name.sh: $bam: the SM tag '$sample' cannot name a sample ('/', a leading '-', '.' or '..')" >&2
        exit 1 ;;
esac
printf '%s\n' "$sample"
