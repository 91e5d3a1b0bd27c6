// Nextflow's strict-syntax check without Nextflow: runs the parser classes of nf-lang
// (nextflow.script.control.ScriptParser for .nf, nextflow.config.control.ConfigParser for
// .config) that `nextflow lint` itself uses. Called by scripts/nf-lint.sh, which puts the jar
// holding nf-lang and Groovy on the class path:
//
//   java -cp language-server-all.jar groovy.ui.GroovyMain scripts/nf-lint.groovy PATH...
//
// A directory is one pipeline: all its .nf and .config files are parsed together by fresh
// parsers (so includes resolve as in `nextflow lint DIR`); file arguments together form one more
// pipeline. Each error is printed as FILE:LINE:COLUMN: MESSAGE, then one summary line per
// pipeline. Exit status: 0 without errors, 1 with any. NF_LINT_WARNINGS=1 prints warnings too
// (they never change the exit status). NF_LINT_SLL=REGEX: each .nf file whose path matches is also parsed by
// the parser's fast pass alone (SLL prediction, which ScriptAstBuilder tries first); one it cannot take is
// printed as FILE: needs the slow pass (nf-lang then parses it again with full LL prediction, several times the
// CPU). Never an error.
import nextflow.config.control.ConfigParser
import nextflow.script.parser.DescriptiveErrorStrategy
import nextflow.script.parser.ScriptLexer
import nextflow.script.control.ScriptParser
import org.antlr.v4.runtime.CharStreams
import org.antlr.v4.runtime.CommonTokenStream
import org.antlr.v4.runtime.atn.PredictionMode
import org.codehaus.groovy.control.messages.ExceptionMessage
import org.codehaus.groovy.control.messages.SyntaxErrorMessage

boolean printWarnings = System.getenv('NF_LINT_WARNINGS') == '1'
// Whether the parser's fast pass (SLL prediction, bailing out at the first ambiguity) cannot take the file.
boolean needsSlowPass(File file) {
    def lexer = new ScriptLexer(CharStreams.fromFileName(file.path))
    def parser = new nextflow.script.parser.ScriptParser(new CommonTokenStream(lexer))
    parser.errorHandler = new DescriptiveErrorStrategy(CharStreams.fromFileName(file.path))
    parser.interpreter.predictionMode = PredictionMode.SLL
    lexer.removeErrorListeners()
    parser.removeErrorListeners()
    try {
        parser.compilationUnit()
        return false
    } catch (Exception ignored) {
        return true
    }
}

// The files of a pipeline directory that Nextflow reads, in a stable order.
List<File> pipelineFiles(File dir) {
    List<File> found = []
    dir.eachFileRecurse(groovy.io.FileType.FILES) { File f ->
        boolean underGit = f.toPath().any { it.toString() == '.git' }
        if (!underGit && (f.name.endsWith('.nf') || f.name.endsWith('.config')))
            found << f.canonicalFile
    }
    return found.sort { it.path }
}

// Parses and analyses the files as one pipeline; prints its problems, returns the error count.
int lint(List<File> files, boolean printWarnings) {
    def scripts = new ScriptParser()
    def configs = new ConfigParser()
    String sllPattern = System.getenv('NF_LINT_SLL')
    files.each { File f ->
        // canonical paths: a module parsed as a file and again through an include is one source
        File file = f.canonicalFile
        if (sllPattern && file.name.endsWith('.nf') && file.path =~ sllPattern && needsSlowPass(file))
            println "${file}: needs the slow pass"
        if (file.name.endsWith('.nf'))
            scripts.parse(file)
        else if (file.name.endsWith('.config'))
            configs.parse(file)
        else
            throw new IllegalArgumentException("not a Nextflow file (.nf or .config): ${f}")
    }
    scripts.analyze()
    configs.analyze()
    int errors = 0
    [scripts.compiler(), configs.compiler()].each { compiler ->
        compiler.sources.values().sort { it.source.URI.toString() }.each { unit ->
            def collector = unit.errorCollector
            if (printWarnings) {
                (collector.warnings ?: []).each { w ->
                    println "${unit.name}:${w.context?.startLine}:${w.context?.startColumn}: warning: ${w.message}"
                }
            }
            (collector.errors ?: []).each { message ->
                if (message instanceof SyntaxErrorMessage) {
                    def cause = message.cause
                    println "${unit.name}:${cause.startLine}:${cause.startColumn}: ${cause.originalMessage}"
                } else if (message instanceof ExceptionMessage) {
                    println "${unit.name}: ${message.cause.class.simpleName}: ${message.cause.message}"
                } else {
                    println "${unit.name}: ${message}"
                }
                errors++
            }
        }
    }
    return errors
}

if (!args) {
    System.err.println 'usage: nf-lint.groovy PIPELINE_DIR_OR_FILE...'
    System.exit(2)
}
int total = 0
List<File> looseFiles = []
for (String arg : args) {
    File path = new File(arg)
    if (path.isDirectory()) {
        List<File> files = pipelineFiles(path)
        int errors = lint(files, printWarnings)
        println "nf-lint: ${arg}: ${errors ? errors + ' error(s)' : 'OK'} (${files.size()} files)"
        total += errors
    } else if (path.isFile()) {
        looseFiles << path
    } else {
        System.err.println "nf-lint: ${arg}: no such file or directory"
        System.exit(2)
    }
}
if (looseFiles) {
    int errors = lint(looseFiles, printWarnings)
    println "nf-lint: ${looseFiles.size()} file(s): ${errors ? errors + ' error(s)' : 'OK'}"
    total += errors
}
System.exit(total ? 1 : 0)
