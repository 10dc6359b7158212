"""Helpers every concern uses: logged build commands, file hashing, atomic writes."""
