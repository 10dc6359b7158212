"""Images: the image key, iree-compile, the bare-metal runtime build, the runner data and
several harts."""
