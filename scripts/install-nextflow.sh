#!/usr/bin/env bash
# Install a runnable Nextflow (pinned) for running the pipelines bioplan emits, idempotently.
#
#   bash scripts/install-nextflow.sh [LINK_DIR]
#
# Without the official launcher's download site (get.nextflow.io, GitHub releases) the runtime is
# assembled from Maven Central: io.nextflow:nextflow and its dependencies are copied into
# PREFIX/lib by Maven, and PREFIX/bin/nextflow starts nextflow.cli.Launcher on that classpath.
# The nf-schema plugin the pipelines declare is compiled from its vendored source
# (third_party/nf-schema) into PREFIX/plugins. When the official release is reachable, its
# self-contained distribution of the same version is used instead. What the assembled runtime
# lacks is written in docs/nextflow-runtime.md.
#
# PREFIX is $BIOPLAN_NEXTFLOW_PREFIX or ~/.cache/bioplan/nextflow-<version> (outside the work
# tree); Maven's downloads stay in its usual cache (~/.m2), so a reinstall downloads nothing.
# LINK_DIR (e.g. .venv/bin) gets a `nextflow` symlink to the launcher. A second run with the same
# script and plugin sources does nothing but the link.
set -euo pipefail

NXF_VERSION=25.04.4
# nf-lang is on Maven Central only as 25.04.0 (the 25.04.x patch releases did not publish it):
# the strict-syntax parser (`nextflow lint`, NXF_SYNTAX_PARSER=v2) is the one of 25.04.0.
NF_LANG_VERSION=25.04.0
NF_SCHEMA_VERSION=2.5.1
# sha256 of the Nextflow jars (Maven checks each download against Central's sha1 as well).
JAR_SHA256="
b2d401a588b27e7a3651176c83bbe56e90ce5072ecc65a04246bfce4fddac642  nextflow-$NXF_VERSION.jar
fc56c8ac2ac030f531dfa6bf2f5dd79ed206ffff82806f39f7ac59a92a81a3a8  nf-commons-$NXF_VERSION.jar
30c2ddfd6492d1b41cd56f1865950e8c5236394aa66ae55de09b03817fab69a7  nf-httpfs-$NXF_VERSION.jar
9e84f25bb189e1754b795102ed37924aae5444a5de8e653116fab764e81534e8  nf-lang-$NF_LANG_VERSION.jar
"
OFFICIAL_DIST_URL="https://github.com/nextflow-io/nextflow/releases/download/v$NXF_VERSION/nextflow-$NXF_VERSION-dist"

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prefix="${BIOPLAN_NEXTFLOW_PREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/bioplan/nextflow-$NXF_VERSION}"
link_dir="${1:-}"
plugin_src="$repo/third_party/nf-schema"

say() { echo "install-nextflow: $*" >&2; }

# The install is current when it was made by this very script from these very plugin sources
# (contents only: another checkout of the same commit finds its install current).
fingerprint() {
    { sha256sum < "${BASH_SOURCE[0]}"; find "$plugin_src" -type f -print0 | sort -z | xargs -0 sha256sum | sed "s#$plugin_src/##"; } \
        | sha256sum | cut -d' ' -f1
}

link() {
    if [ -n "$link_dir" ]; then
        mkdir -p "$link_dir"
        ln -sfn "$prefix/bin/nextflow" "$link_dir/nextflow"
    fi
}

need_java_and_maven() {
    local missing=()
    command -v java >/dev/null || missing+=(openjdk-17-jdk-headless)
    command -v mvn >/dev/null || missing+=(maven)
    if [ ${#missing[@]} -gt 0 ]; then
        if [ "$(id -u)" -ne 0 ]; then
            say "needs ${missing[*]}: sudo apt-get install -y ${missing[*]}"
            exit 2
        fi
        say "installing ${missing[*]} from Debian"
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
    local major
    major="$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1)"
    if [ "${major:-0}" -lt 17 ]; then
        say "Nextflow $NXF_VERSION needs Java 17 or newer; \`java -version\` says ${major:-nothing}"
        exit 2
    fi
}

# The official self-contained distribution, when its download site answers (not on CI here).
try_official() {
    command -v curl >/dev/null || return 1
    curl -fsSL --max-time 120 --connect-timeout 5 -o "$1/nextflow-dist" "$OFFICIAL_DIST_URL" 2>/dev/null || return 1
    chmod +x "$1/nextflow-dist"
    cat > "$1/bin/nextflow" <<EOF
#!/usr/bin/env bash
# Official Nextflow $NXF_VERSION distribution, installed by bioplan's scripts/install-nextflow.sh.
exec "$prefix/nextflow-dist" "\$@"
EOF
    chmod +x "$1/bin/nextflow"
}

# Copy the runtime dependencies of a pom into a folder (Maven's log shown only on failure).
maven() {
    mvn -B -Dstyle.color=never -f "$1" dependency:copy-dependencies -DincludeScope=runtime \
        -DoutputDirectory="$2" >"$1.log" 2>&1 || { cat "$1.log" >&2; say "maven failed on $1"; exit 1; }
}

maven_runtime() {
    local work="$1/build"
    mkdir -p "$work/runtime" "$work/plugin"
    cat > "$work/runtime/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>bioplan.local</groupId><artifactId>nextflow-runtime</artifactId><version>$NXF_VERSION</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>io.nextflow</groupId><artifactId>nextflow</artifactId><version>$NXF_VERSION</version>
      <exclusions>
        <!-- not on Maven Central: nf-lang is pinned below; lib-trace is only used by
             nextflow.util.SimpleHttpClient, which the core runtime never loads -->
        <exclusion><groupId>io.nextflow</groupId><artifactId>nf-lang</artifactId></exclusion>
        <exclusion><groupId>io.seqera</groupId><artifactId>lib-trace</artifactId></exclusion>
      </exclusions>
    </dependency>
    <dependency><groupId>io.nextflow</groupId><artifactId>nf-lang</artifactId><version>$NF_LANG_VERSION</version></dependency>
  </dependencies>
</project>
EOF
    # the dependencies nf-schema's build.gradle names (tag $NF_SCHEMA_VERSION)
    cat > "$work/plugin/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>bioplan.local</groupId><artifactId>nf-schema-deps</artifactId><version>$NF_SCHEMA_VERSION</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.json</groupId><artifactId>json</artifactId><version>20240303</version></dependency>
    <dependency><groupId>dev.harrel</groupId><artifactId>json-schema</artifactId><version>1.5.0</version></dependency>
    <dependency><groupId>com.sanctionco.jmail</groupId><artifactId>jmail</artifactId><version>1.6.3</version></dependency>
  </dependencies>
</project>
EOF
    say "resolving io.nextflow:nextflow:$NXF_VERSION and its dependencies from Maven Central"
    maven "$work/runtime/pom.xml" "$1/lib"
    (cd "$1/lib" && echo "$JAR_SHA256" | sed '/^$/d' | sha256sum -c --quiet -)

    cat > "$1/bin/nextflow" <<EOF
#!/usr/bin/env bash
# Nextflow $NXF_VERSION assembled from Maven Central by bioplan's scripts/install-nextflow.sh
# (what it lacks compared with the official launcher: docs/nextflow-runtime.md in bioplan).
# Plugins come from $prefix/plugins (nf-schema $NF_SCHEMA_VERSION built from source): the
# plugin registry is not reachable, so the runtime stays offline unless NXF_OFFLINE says otherwise.
export NXF_PLUGINS_DIR="\${NXF_PLUGINS_DIR:-$prefix/plugins}"
# a plugins dir of its own would otherwise put Nextflow in its plugin-development mode
export NXF_PLUGINS_MODE="\${NXF_PLUGINS_MODE:-prod}"
export NXF_OFFLINE="\${NXF_OFFLINE:-true}"
java_bin="\${NXF_JAVA_HOME:+\$NXF_JAVA_HOME/bin/java}"
java_bin="\${java_bin:-\${JAVA_HOME:+\$JAVA_HOME/bin/java}}"
# the JVM options of the official launcher for Java 17+
# shellcheck disable=SC2086
exec "\${java_bin:-java}" -Xss4m -Djava.awt.headless=true -Dfile.encoding=UTF-8 \\
    -XX:+TieredCompilation -XX:TieredStopAtLevel=1 -Dcom.sun.security.enableAIAcaIssuers=true \\
    --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED \\
    --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.nio.file.spi=ALL-UNNAMED \\
    --add-opens=java.base/java.net=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED \\
    --add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED \\
    --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED \\
    --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/sun.nio.fs=ALL-UNNAMED \\
    --add-opens=java.base/sun.net.www.protocol.http=ALL-UNNAMED \\
    --add-opens=java.base/sun.net.www.protocol.https=ALL-UNNAMED \\
    --add-opens=java.base/sun.net.www.protocol.ftp=ALL-UNNAMED \\
    --add-opens=java.base/sun.net.www.protocol.file=ALL-UNNAMED \\
    --add-opens=java.base/jdk.internal.misc=ALL-UNNAMED --add-opens=java.base/jdk.internal.vm=ALL-UNNAMED \\
    --add-opens=java.base/java.util.regex=ALL-UNNAMED \\
    \${NXF_OPTS:-} -cp "$prefix/lib/*" nextflow.cli.Launcher "\$@"
EOF
    chmod +x "$1/bin/nextflow"

    say "building nf-schema $NF_SCHEMA_VERSION from third_party/nf-schema"
    local plugin="$1/plugins/nf-schema-$NF_SCHEMA_VERSION"
    mkdir -p "$plugin/lib" "$plugin/classes/META-INF"
    maven "$work/plugin/pom.xml" "$plugin/lib"
    local sources
    mapfile -t sources < <(find "$plugin_src/src/main/groovy" -name '*.groovy' | sort)
    java -cp "$1/lib/*:$plugin/lib/*" org.codehaus.groovy.tools.FileSystemCompiler \
        -d "$plugin/classes" "${sources[@]}" >"$work/groovyc.log" 2>&1 \
        || { cat "$work/groovyc.log" >&2; say "compiling nf-schema failed"; exit 1; }
    # What the plugin's Gradle build writes: pf4j's manifest (Nextflow looks for it under
    # classes/) and the extension index naming the plugin's extension points.
    cat > "$plugin/classes/META-INF/MANIFEST.MF" <<EOF
Manifest-Version: 1.0
Plugin-Id: nf-schema
Plugin-Version: $NF_SCHEMA_VERSION
Plugin-Class: nextflow.validation.ValidationPlugin
Plugin-Provider: nextflow
Plugin-Requires: >=25.04.0
EOF
    printf '%s\n' nextflow.validation.config.ValidationConfig nextflow.validation.ValidationExtension \
        nextflow.validation.ValidationObserverFactory > "$plugin/classes/META-INF/extensions.idx"
}

main() {
    local want
    want="$(fingerprint)"
    if [ -x "$prefix/bin/nextflow" ] && [ "$(cat "$prefix/.installed" 2>/dev/null)" = "$want" ]; then
        link
        return 0
    fi
    # build beside the target and move it in whole: an interrupted install leaves no half runtime
    local stage="$prefix.partial.$$"
    rm -rf "$stage"
    mkdir -p "$stage/bin" "$stage/lib" "$stage/plugins"
    trap 'rm -rf "$stage"' EXIT
    if try_official "$stage"; then
        say "official Nextflow $NXF_VERSION distribution installed"
    else
        need_java_and_maven
        maven_runtime "$stage"
        rm -rf "$stage/build"
    fi
    echo "$want" > "$stage/.installed"
    rm -rf "$prefix"
    mv "$stage" "$prefix"
    trap - EXIT
    # the launchers name $prefix, so check the installed one starts
    "$prefix/bin/nextflow" -version >/dev/null
    say "Nextflow $NXF_VERSION in $prefix"
    link
}

main
