"""The model for the user's own firmware: `scons library` (docs/firmware.md)."""
