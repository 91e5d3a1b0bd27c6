"""nf-core's names for a tool's Nextflow module: the module path is tool/subtool, leaves only
(`star/align` beside `star/genomegenerate`, never `star/main.nf` above `star/genomegenerate/`), and the
process is TOOL_SUBTOOL."""

from __future__ import annotations

from bioplan.knowledge.models import Tool


def module_name(tool: Tool) -> str:
    """tool/subtool: the tool file's `nf_module` (a tool sharing its first word with others names its
    leaf there: star -> star/align), else from the id, the subtool without underscores as nf-core
    writes it (star_genome_generate -> star/genomegenerate, bcftools_csq -> bcftools/csq)."""
    if tool.nf_module:
        return tool.nf_module
    head, _, rest = tool.id.partition("_")
    return f"{head}/{rest.replace('_', '')}" if rest else head


def module_path(tool: Tool) -> str:
    return f"modules/local/{module_name(tool)}"


def process_name(tool: Tool) -> str:
    """STAR_ALIGN for star/align."""
    return module_name(tool).replace("/", "_").upper()


def non_leaf_modules(tools: list[Tool]) -> list[str]:
    """Module paths of these tools that another's lies under (nf-core keeps modules at the leaves)."""
    names = {module_name(t) for t in tools}
    return sorted(n for n in names if any(other.startswith(n + "/") for other in names))
