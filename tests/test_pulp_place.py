"""cluster4-pulp's placing of a layer's pruned output channels (bsp/cluster4-pulp/
place_q8.c): the translator computes only the live channels (formats/pruned_outputs.py)
and the board's spec hands the op that places them to the board's kernel."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_pulp_board import _run_exactly
from tflite_builder import Graph, save

from ireerv.inputs.fetch import Fetcher


def pruned_net(path: Path) -> Path:
    """A 1x1 layer of 16 filters, 10 of them pruned (weights 0: the bias alone), over
    6 x 6 pixels of 32 channels, then one of 8 filters reading it."""
    rng = np.random.default_rng(51)
    g = Graph()
    x = g.tensor("x", (1, 6, 6, 32), np.int8, scale=0.5, zero_point=-1)
    weights = rng.integers(-127, 128, (16, 1, 1, 32))
    weights[[0, 1, 2, 4, 5, 8, 9, 11, 13, 14]] = 0
    scales = list(rng.uniform(0.005, 0.02, 16))
    w = g.tensor("pruned_w", (16, 1, 1, 32), np.int8, weights.ravel(), scales, [0] * 16)
    b = g.tensor("pruned_b", (16,), np.int32, rng.integers(-400, 400, 16),
                 [0.05 * s for s in scales], [0] * 16)
    y = g.tensor("pruned", (1, 6, 6, 16), np.int8, scale=0.06, zero_point=-128)
    g.op("CONV_2D", [x, w, b], [y], padding="SAME", stride=(1, 1), activation="RELU")
    scales2 = list(rng.uniform(0.005, 0.02, 8))
    w2 = g.tensor("next_w", (8, 1, 1, 16), np.int8, rng.integers(-127, 128, 128), scales2,
                  [0] * 8)
    b2 = g.tensor("next_b", (8,), np.int32, rng.integers(-400, 400, 8),
                  [0.06 * s for s in scales2], [0] * 8)
    z = g.tensor("next", (1, 6, 6, 8), np.int8, scale=0.08, zero_point=-128)
    g.op("CONV_2D", [y, w2, b2], [z], padding="SAME", stride=(1, 1), activation="RELU")
    return save(g, path, [x], [y, z])


@pytest.mark.cluster
@pytest.mark.upstream
def test_pruned_channels_are_placed_by_the_board_kernel(tree: Path, fetcher: Fetcher,
                                                       tmp_path: Path) -> None:
    """The op placing the computed and the pruned channels calls ireerv_place_q8 (IREE's
    loop over the output bytes took vww about 45,000 cycles a 6x6x128 layer; vww
    6,824,549 -> 6,678,113 cycles a call), and the outputs are LiteRT's bit for bit."""
    folder = _run_exactly(tree, fetcher, pruned_net(tmp_path / "pruned.tflite"))
    assert "ireerv_place_q8" in (folder / "image.map").read_text()
