"""bioplan: a workflow compiler for bioinformatics.

Stages (each a function from one frozen pydantic model to the next):
load -> parse -> sniff -> spec -> anchor -> search -> rank -> bind -> synthesize -> emit -> validate.
See ARCHITECTURE.md.
"""

__version__ = "0.1.0"

# Operations on a plan's longest dependency chain. nf-core/atacseq's reads -> consensus peaks -> sample
# PCA is 10 deep (trim, align, mark duplicates, filter, call, merge, count, normalise, PCA); 12 leaves
# room for a QC or conversion step the binder inserts. Deeper plans need --max-hops.
DEFAULT_MAX_HOPS = 12
