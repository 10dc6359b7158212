"""Build logic for IREE bare-metal RISC-V images, kept free of SCons so it can be unit-tested."""
