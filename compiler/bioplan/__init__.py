"""bioplan: a workflow compiler for bioinformatics.

Stages (each a function from one frozen pydantic model to the next):
load -> parse -> sniff -> spec -> anchor -> search -> rank -> bind -> synthesize -> emit -> validate.
See ARCHITECTURE.md.
"""

__version__ = "0.1.0"
