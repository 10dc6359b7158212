"""References: what a run is checked against, the host build or the model's framework."""
