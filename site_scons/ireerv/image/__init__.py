"""Images: models, iree-compile, the bare-metal runtime build and the runner data."""
