"""IREE's bare-metal runtime: its CMake build for a board's flags, and which HAL an image
calls its kernels through."""
