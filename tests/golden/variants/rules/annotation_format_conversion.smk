rule annotation_format_conversion:
    input:
        annotation=config["inputs"]["gene_annotation"],
    output:
        annotation="results/annotation_format_conversion/annotation.gtf",
    log:
        "logs/annotation_format_conversion.log",
    benchmark:
        "benchmarks/annotation_format_conversion.tsv"
    conda:
        "../envs/gffread_gtf.yaml"
    container:
        "docker://quay.io/biocontainers/gffread:0.12.7--hdcf5f25_4"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 30 * attempt,
    params:
        extra=config["params"]["gffread_gtf"]["extra"],
    shell:
        """
        exec 2>{log:q}
        tmp=$(mktemp -d)
        trap 'rm -rf -- "$tmp"' EXIT
        case {input.annotation:q} in
            *.gz) gzip -cd {input.annotation:q} >"$tmp/in.gff3" ;;
            *) ln -s "$(readlink -f {input.annotation:q})" "$tmp/in.gff3" ;;
        esac
        gffread "$tmp/in.gff3" -T {params.extra} -o "$tmp/raw.gtf"
        awk -F '\\t' -v OFS='\\t' -v q='"' '
            function gff(s, key,   n, i, kv) {{
                n = split(s, kv, ";")
                for (i = 1; i <= n; i++) if (index(kv[i], key "=") == 1) return substr(kv[i], length(key) + 2)
                return ""
            }}
            function gtf(s, key) {{
                if (match(s, key " " q "[^" q "]*" q)) return substr(s, RSTART + length(key) + 2, RLENGTH - length(key) - 3)
                return ""
            }}
            FNR == NR {{
                if ($0 ~ /^#/ || NF < 9) next
                id = gff($9, "ID")
                if (id == "") next
                plain = gff($9, "gene_id")
                if (plain == "") plain = gff($9, "transcript_id")
                if (plain != "") ids[id] = plain
                if ($3 ~ /gene$/) {{
                    if (gff($9, "Name") != "") name[id] = gff($9, "Name")
                    if (gff($9, "biotype") != "") type[id] = gff($9, "biotype")
                }}
                next
            }}
            {{
                t = gtf($9, "transcript_id"); g = gtf($9, "gene_id")
                nt = (t in ids) ? ids[t] : t; sub(/^transcript:/, "", nt)
                ng = (g in ids) ? ids[g] : g; sub(/^gene:/, "", ng)
                a = "transcript_id " q nt q "; gene_id " q ng q ";"
                if (g in name) a = a " gene_name " q name[g] q ";"
                if (g in type) a = a " gene_biotype " q type[g] q ";"
                $9 = a
                print
            }}
        ' "$tmp/in.gff3" "$tmp/raw.gtf" >{output.annotation:q}
        """
