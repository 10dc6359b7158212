"""An image: the model's way through iree-compile (its key, the flags, the tuning, the
constants' split, the runner's data) to the linked ELF."""
