"""Size: ELF and map reading, the analysis and one module per output format."""
