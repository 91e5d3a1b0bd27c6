"""The sniffers: one module per family of inputs, each declaring the knowledge formats and datatypes
its readers report (`FileSniffer` / `FolderSniffer` in `base`); `registry` puts them in one ordered
list and `bioplan.request.sniff` is the stage's entry (`sniff_inputs`, `sniff_file`)."""
