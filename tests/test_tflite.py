"""TFLite models: read with the flatbuffer schema, translated to TOSA, checked by LiteRT.

The models are written here with the schema's builders (tests/tflite_builder.py),
every operator's result an output of its own, so each is compared with LiteRT
separately: on the host (iree-compile for the host, IREE's Python runtime) and
on QEMU.  The MLPerf Tiny networks need the pinned `mlperf-tiny` input.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from conftest import need_module, needs_qemu, require_input
from scons_helpers import scons
from shared_runs import SharedRuns
from tflite_builder import Graph, save

from ireerv import formats as models
from ireerv.formats import ModelError, load_model, tflite_reader, tflite_tosa
from ireerv.formats.claims import has_tflite
from ireerv.formats.tflite_format import import_model
from ireerv.formats.tflite_math import quantize_multiplier, round_half_away, tflite_multiply
from ireerv.inputs.fetch import Fetcher
from ireerv.reference import host, litert
from ireerv.run import check

need_module("ai_edge_litert")

I8, F32, I32 = np.int8, np.float32, np.int32


def _rng(seed: int):
    return np.random.default_rng(seed)


def int8_net(path: Path) -> Path:
    """CONV_2D (SAME, stride 2, RELU, per-channel), DEPTHWISE_CONV_2D (RELU6), ADD,
    global AVERAGE_POOL_2D, RESHAPE, FULLY_CONNECTED, SOFTMAX: all int8."""
    g = Graph()
    x = g.tensor("x", (1, 8, 6, 2), I8, scale=0.5, zero_point=3)
    cw = g.tensor("cw", (4, 3, 3, 2), I8, _rng(1).integers(-127, 128, 72),
                  [0.011, 0.007, 0.02, 0.015], [0] * 4)
    cb = g.tensor("cb", (4,), I32, _rng(2).integers(-300, 300, 4), [0.5 * s for s in
                                                                   (0.011, 0.007, 0.02, 0.015)],
                  [0] * 4)
    c = g.tensor("conv", (1, 4, 3, 4), I8, scale=0.09, zero_point=-128)
    g.op("CONV_2D", [x, cw, cb], [c], padding="SAME", stride=(2, 2), activation="RELU")
    dw = g.tensor("dw", (1, 3, 3, 4), I8, _rng(3).integers(-127, 128, 36),
                  [0.01, 0.02, 0.013, 0.008], [0] * 4, axis=3)
    db = g.tensor("db", (4,), I32, [10, -20, 30, 5], [0.09 * s for s in
                                                       (0.01, 0.02, 0.013, 0.008)], [0] * 4)
    d = g.tensor("depthwise", (1, 4, 3, 4), I8, scale=0.03, zero_point=-128)
    g.op("DEPTHWISE_CONV_2D", [c, dw, db], [d], padding="SAME", stride=(1, 1), multiplier=1,
         activation="RELU6")
    a = g.tensor("add", (1, 4, 3, 4), I8, scale=0.1, zero_point=-100)
    g.op("ADD", [c, d], [a])
    p = g.tensor("pool", (1, 1, 1, 4), I8, scale=0.1, zero_point=-100)
    g.op("AVERAGE_POOL_2D", [a], [p], padding="VALID", stride=(4, 3), filter=(4, 3))
    shape = g.tensor("shape", (2,), I32, [1, 4])
    r = g.tensor("flat", (1, 4), I8, scale=0.1, zero_point=-100)
    g.op("RESHAPE", [p, shape], [r], new_shape=[1, 4])
    fw = g.tensor("fw", (5, 4), I8, _rng(4).integers(-127, 128, 20), 0.02, 0)
    fb = g.tensor("fb", (5,), I32, [100, -50, 0, 25, 7], 0.002, 0)
    f = g.tensor("logits", (1, 5), I8, scale=0.05, zero_point=2)
    g.op("FULLY_CONNECTED", [r, fw, fb], [f])
    s = g.tensor("probs", (1, 5), I8, scale=1 / 256, zero_point=-128)
    g.op("SOFTMAX", [f], [s], beta=1.0)
    return save(g, path, [x], [c, d, a, p, f, s])


def float_net(path: Path) -> Path:
    """CONV_2D (VALID, stride 2, a row to crop), MAX_POOL_2D, AVERAGE_POOL_2D (SAME),
    RESHAPE, FULLY_CONNECTED (RELU), SOFTMAX (beta)."""
    g = Graph()
    x = g.tensor("x", (1, 7, 7, 1), F32)
    w = g.tensor("w", (3, 2, 2, 1), F32, _rng(5).standard_normal(12) * 0.5)
    b = g.tensor("b", (3,), F32, [0.1, -0.2, 0.3])
    c = g.tensor("conv", (1, 3, 3, 3), F32)
    g.op("CONV_2D", [x, w, b], [c], padding="VALID", stride=(2, 2), activation="RELU")
    m = g.tensor("max", (1, 2, 2, 3), F32)
    g.op("MAX_POOL_2D", [c], [m], padding="VALID", stride=(1, 1), filter=(2, 2))
    a = g.tensor("avg", (1, 2, 2, 3), F32)
    g.op("AVERAGE_POOL_2D", [m], [a], padding="SAME", stride=(1, 1), filter=(2, 2))
    shape = g.tensor("shape", (2,), I32, [1, 12])
    r = g.tensor("flat", (1, 12), F32)
    g.op("RESHAPE", [a, shape], [r], new_shape=[1, 12])
    fw = g.tensor("fw", (4, 12), F32, _rng(6).standard_normal(48) * 0.5)
    fb = g.tensor("fb", (4,), F32, [0.5, 0.0, -0.5, 0.25])
    f = g.tensor("dense", (1, 4), F32)
    g.op("FULLY_CONNECTED", [r, fw, fb], [f], activation="RELU")
    s = g.tensor("probs", (1, 4), F32)
    g.op("SOFTMAX", [f], [s], beta=0.5)
    return save(g, path, [x], [c, m, a, f, s])


def quantize_net(path: Path) -> Path:
    """QUANTIZE (f32 -> int8, and int8 -> int8), FULLY_CONNECTED, DEQUANTIZE."""
    g = Graph()
    x = g.tensor("x", (2, 6), F32)
    q = g.tensor("q", (2, 6), I8, scale=0.05, zero_point=-3)
    g.op("QUANTIZE", [x], [q])
    q2 = g.tensor("requantised", (2, 6), I8, scale=0.07, zero_point=5)
    g.op("QUANTIZE", [q], [q2])
    fw = g.tensor("fw", (3, 6), I8, _rng(7).integers(-127, 128, 18), [0.02, 0.01, 0.03], [0] * 3)
    y = g.tensor("y", (2, 3), I8, scale=0.1, zero_point=0)
    g.op("FULLY_CONNECTED", [q2, fw, -1], [y], activation="RELU")
    d = g.tensor("real", (2, 3), F32)
    g.op("DEQUANTIZE", [y], [d])
    return save(g, path, [x], [q, q2, y, d])


def pointwise_net(path: Path) -> Path:
    """int8 1x1 CONV_2Ds: 128 -> 288 channels (36,864 bytes of weights: two groups of
    output channels; channels whose multiplier is at least 0.5 beside channels that
    shift right), then 288 -> 6 (read as channel pairs)."""
    g = Graph()
    x = g.tensor("x", (1, 2, 3, 128), I8, scale=0.05, zero_point=3)
    scales = [0.015 if c % 3 == 0 else 0.0001 for c in range(288)]
    cw = g.tensor("cw", (288, 1, 1, 128), I8, _rng(8).integers(-127, 128, 288 * 128),
                  scales, [0] * 288)
    cb = g.tensor("cb", (288,), I32, _rng(9).integers(-900, 900, 288),
                  [0.05 * s for s in scales], [0] * 288)
    c = g.tensor("wide", (1, 2, 3, 288), I8, scale=0.001, zero_point=-5)
    g.op("CONV_2D", [x, cw, cb], [c], padding="VALID", stride=(1, 1))
    pw = g.tensor("pw", (6, 1, 1, 288), I8, _rng(10).integers(-127, 128, 6 * 288),
                  [0.01] * 6, [0] * 6)
    pb = g.tensor("pb", (6,), I32, [40, -40, 0, 7, -7, 1000], [0.00001] * 6, [0] * 6)
    p = g.tensor("narrow", (1, 2, 3, 6), I8, scale=0.2, zero_point=0)
    g.op("CONV_2D", [c, pw, pb], [p], padding="SAME", stride=(1, 1), activation="RELU")
    return save(g, path, [x], [c, p])


def wide_float_net(path: Path) -> Path:
    """A float FULLY_CONNECTED of 49,152 bytes of weights (128 -> 96, RELU): three groups
    of 32 output channels, each output's sum as it was."""
    g = Graph()
    x = g.tensor("x", (1, 128), F32)
    w = g.tensor("w", (96, 128), F32, _rng(11).standard_normal(96 * 128) * 0.1)
    b = g.tensor("b", (96,), F32, _rng(12).standard_normal(96) * 0.1)
    y = g.tensor("wide", (1, 96), F32)
    g.op("FULLY_CONNECTED", [x, w, b], [y], activation="RELU")
    return save(g, path, [x], [y])


def strided_net(path: Path) -> Path:
    """An int8 CONV_2D of column stride 2 and kernel width 4 (SAME: a column of padding
    each side), read as column pairs."""
    g = Graph()
    x = g.tensor("x", (1, 9, 10, 1), I8, scale=0.1, zero_point=40)
    w = g.tensor("w", (6, 3, 4, 1), I8, _rng(11).integers(-127, 128, 72), [0.01] * 6, [0] * 6)
    b = g.tensor("b", (6,), I32, _rng(12).integers(-500, 500, 6), [0.001] * 6, [0] * 6)
    c = g.tensor("strided", (1, 5, 5, 6), I8, scale=0.05, zero_point=-10)
    g.op("CONV_2D", [x, w, b], [c], padding="SAME", stride=(2, 2), activation="RELU")
    return save(g, path, [x], [c])


def pruned_net(path: Path) -> Path:
    """int8 1x1 CONV_2D (RELU), DEPTHWISE_CONV_2D and a 1x1 CONV_2D of one weight scale
    with pruned output channels (every weight 0) whose biases are near 2^30, as vww's:
    each such output is its bias requantised, and the other channels keep the one-op
    requantisation."""
    g = Graph()
    x = g.tensor("x", (1, 3, 4, 8), I8, scale=0.05, zero_point=-128)
    weights = _rng(13).integers(-127, 128, (6, 1, 1, 8))
    weights[[1, 4]] = 0
    scales = [0.01, 1e-9, 0.02, 0.015, 3e-8, 0.012]
    bias = _rng(14).integers(-900, 900, 6)
    bias[[1, 4]] = 1_000_000_000, -1_100_000_000
    cw = g.tensor("cw", (6, 1, 1, 8), I8, weights.reshape(-1), scales, [0] * 6)
    cb = g.tensor("cb", (6,), I32, bias, [0.05 * s for s in scales], [0] * 6)
    c = g.tensor("pruned", (1, 3, 4, 6), I8, scale=0.02, zero_point=-128)
    g.op("CONV_2D", [x, cw, cb], [c], padding="VALID", stride=(1, 1), activation="RELU")
    weights = _rng(15).integers(-127, 128, (1, 3, 3, 6))
    weights[..., 2] = 0
    scales = [0.01, 0.02, 7e-9, 0.013, 0.008, 0.011]
    bias = _rng(16).integers(-500, 500, 6)
    bias[2] = (1 << 30) - 5
    dw = g.tensor("dw", (1, 3, 3, 6), I8, weights.reshape(-1), scales, [0] * 6, axis=3)
    db = g.tensor("db", (6,), I32, bias, [0.02 * s for s in scales], [0] * 6)
    d = g.tensor("pruned_depthwise", (1, 3, 4, 6), I8, scale=0.03, zero_point=4)
    g.op("DEPTHWISE_CONV_2D", [c, dw, db], [d], padding="SAME", stride=(1, 1), multiplier=1)
    weights = _rng(17).integers(-127, 128, (3, 1, 1, 6))
    weights[1] = 0
    pw = g.tensor("pw", (3, 1, 1, 6), I8, weights.reshape(-1), 0.01, 0)  # one scale for all
    pb = g.tensor("pb", (3,), I32, [300, (1 << 30) - 7, -200], 0.0003, 0)
    p = g.tensor("pruned_per_tensor", (1, 3, 4, 3), I8, scale=0.04, zero_point=-7)
    g.op("CONV_2D", [d, pw, pb], [p], padding="VALID", stride=(1, 1))
    return save(g, path, [x], [c, d, p])


NETS = [int8_net, float_net, quantize_net, pointwise_net, wide_float_net, strided_net,
        pruned_net]


# -- Reading: the flatbuffer schema ---------------------------------------------------------


def test_signature_comes_from_the_file(tmp_path: Path) -> None:
    model = load_model(str(int8_net(tmp_path / "small.tflite")))
    assert (model.name, model.function, model.vm_module) == ("small", "main", "module")
    assert [(s.shape, s.dtype) for s in model.inputs] == [((1, 8, 6, 2), "i8")]
    assert model.inputs[0].generator == {"kind": "randint", "low": -128, "high": 128, "seed": 1}
    x = model.origin.inputs[0]
    assert (x.name, x.scale, x.zero_point) == ("x", (0.5,), (3,))
    assert [(t.name, t.shape, t.dtype) for t in model.origin.outputs][-1] == \
        ("probs", (1, 5), "i8")
    graph = tflite_reader.read(model.source)
    assert [op.name for op in graph.operators][:2] == ["CONV_2D", "DEPTHWISE_CONV_2D"]
    assert graph.operators[0].options["Padding"] == "SAME"
    assert graph.tensors[graph.operators[1].inputs[1]].axis == 3


def test_model_folder_and_typo(tmp_path: Path) -> None:
    folder = tmp_path / "net"
    float_net(folder / "model.tflite")
    (folder / "model.toml").write_text(
        'tolerance = 1e-6\nplacement = "large"\n'
        '[[inputs]]\ngenerator = { kind = "randint", low = -2, high = 3 }\n')
    model = load_model(str(folder))
    assert (model.name, model.tolerance, model.inputs[0].generator["low"]) == ("net", 1e-6, -2)
    assert model.placement == "large"
    (folder / "model.toml").write_text("tolerence = 0.1\n")
    with pytest.raises(ModelError, match="key 'tolerence': unknown key; did you mean"):
        load_model(str(folder))


def test_broken_and_unsupported_files(tmp_path: Path) -> None:
    junk = tmp_path / "junk.tflite"
    junk.write_bytes(b"\x00" * 4 + b"nope" + b"\x00" * 40)
    with pytest.raises(ModelError, match=r"junk.tflite: not a TFLite file \(no TFL3"):
        load_model(str(junk))
    whole = int8_net(tmp_path / "whole.tflite").read_bytes()
    cut = tmp_path / "cut.tflite"
    cut.write_bytes(whole[:200])
    with pytest.raises(ModelError, match="cut.tflite: not a readable TFLite model"):
        load_model(str(cut))
    g = Graph()
    x = g.tensor("x", (4,), np.uint8, scale=0.1, zero_point=128)
    y = g.tensor("y", (4,), np.uint8, scale=0.1, zero_point=128)
    g.op("RESHAPE", [x], [y])
    with pytest.raises(ModelError, match="input 'x' has element type ui8, which is not "
                                         "supported"):
        load_model(str(save(g, tmp_path / "u8.tflite", [x], [y])))


def test_unsupported_operator_is_named(tmp_path: Path) -> None:
    g = Graph()
    x, t, y = (g.tensor(n, (1, 4), F32) for n in ("x", "t", "y"))
    g.op("TANH", [x], [t])
    g.op("LOGISTIC", [t], [y])
    model = load_model(str(save(g, tmp_path / "odd.tflite", [x], [y])))
    mlir = tmp_path / "out" / "model.mlir"
    with pytest.raises(tflite_reader.TfliteError, match=r"odd.tflite: the TFLite operators "
                       r"LOGISTIC, TANH cannot be imported \(the TFLite to TOSA translator "
                       r"supports ADD, "):
        import_model(model.source, mlir)
    assert not mlir.parent.exists() or not any(mlir.parent.iterdir())


def test_requantisation_multiplier() -> None:
    assert quantize_multiplier(0.5) == (1 << 30, 0)
    assert quantize_multiplier(0.75) == (3 << 29, 0)
    assert quantize_multiplier(2.0) == (1 << 30, 2)
    assert quantize_multiplier(0.0) == (0, 0)
    assert [round_half_away(v) for v in (2.5, -2.5, 0.49, -0.5)] == [3, -3, 0, -1]
    # The doubling high multiply rounds halves up, the right shift away from zero.
    assert [tflite_multiply(x, 1 << 30, 0) for x in (3, -3, 5)] == [2, -1, 3]
    assert [tflite_multiply(x, 1 << 30, -1) for x in (6, -6, 2, -2)] == [2, -2, 1, -1]


def _bounded_requantise(x: int, multiplier: int, exponent: int, clamped: bool = False) -> int:
    """Writer._multiply_bounded's TOSA ops on int32, each result checked to fit."""
    def i32(v: int) -> int:
        assert -(1 << 31) <= v < 1 << 31
        return v
    doubled = i32(x * (2 << max(exponent, 0)))
    high = i32((doubled * multiplier + (1 << 31)) >> 32)  # tosa.rescale, shift 32
    right = max(-exponent, 0)
    if not right:
        return high
    nudge = i32((0 if clamped else doubled >> 31) + (1 << (right - 1)))
    return i32(high + nudge) >> right


def test_bounded_requantisation_is_tflites() -> None:
    """The cheaper requantisation gives TFLite's bits for every |x * 2^left| < 2^29."""
    rng = np.random.default_rng(7)
    reals = [0.5, 0.75, 2.0, 1e-9, 0.9999999, 3.5e-3, *rng.uniform(1e-6, 0.99, 40)]
    for real in reals:
        multiplier, exponent = quantize_multiplier(float(real))
        limit = (1 << 29) >> max(exponent, 0)
        for right in range(0, 8):  # exact halves around 0 and a few ulps beside them
            edges = [k * (1 << right) + d for k in (-3, -1, 0, 1, 3) for d in (-1, 0, 1)]
            for x in [*edges, limit - 1, 1 - limit, *rng.integers(1 - limit, limit, 500)]:
                want = tflite_multiply(int(x), multiplier, exponent)
                assert _bounded_requantise(int(x), multiplier, exponent) == want, (real, x)
                # Clamped at 0 (a ReLU at the output zero point), negatives may round up.
                clamped = _bounded_requantise(int(x), multiplier, exponent, clamped=True)
                assert max(clamped, 0) == max(want, 0), (real, x)


def test_folded_zero_point_is_tflites() -> None:
    """A requantisation with the output zero point in its nudge gives TFLite's bits plus
    the zero point, inside int32."""
    rng = np.random.default_rng(11)
    for real in [0.5, 0.75, 2.0, 3.5e-3, *rng.uniform(1e-6, 0.99, 40)]:
        multiplier, exponent = quantize_multiplier(float(real))
        right = max(-exponent, 0)
        limit = (1 << 29) >> max(exponent, 0)
        for x in [*range(-300, 300), *rng.integers(1 - limit, limit, 300)]:
            want = tflite_multiply(int(x), multiplier, exponent)
            if not 0 < right <= 22:
                continue
            for zp in (-128, -5, 0, 38, 127):
                doubled = int(x) * (2 << max(exponent, 0))
                high = (doubled * multiplier + (1 << 31)) >> 32
                nudge = (doubled >> 31) + (1 << (right - 1)) + (zp << right)
                assert -(1 << 31) <= high + nudge < 1 << 31
                assert (high + nudge) >> right == want + zp, (real, x, zp)


def test_litert_reference(tmp_path: Path) -> None:
    path = quantize_net(tmp_path / "q.tflite")
    x = np.linspace(-2, 2, 12, dtype=np.float32).reshape(2, 6)
    q, *_ = litert.compute(path, [x])
    assert q.dtype == np.int8
    assert np.array_equal(q, np.clip(np.round(x / 0.05) - 3, -128, 127).astype(np.int8))


# -- The translation, compiled for the host and run against LiteRT, operator by operator ----


@pytest.fixture(scope="module")
def host_compiler(compiler: Path) -> Path:
    return compiler


@pytest.mark.parametrize("make", NETS, ids=lambda f: f.__name__)
def test_every_operator_matches_litert_on_the_host(host_compiler: Path, tmp_path: Path,
                                                   make) -> None:
    model = load_model(str(make(tmp_path / f"{make.__name__}.tflite")))
    mlir, vmfb = tmp_path / "model.mlir", tmp_path / "model.vmfb"
    import_model(model.source, mlir)
    host.compile_for_host(host_compiler, mlir, vmfb)
    inputs = model.generate_inputs(None)
    got = host.compute(vmfb, "main", inputs)
    want = litert.compute(model.source, inputs)
    # int8 bit for bit but the softmax (f32 inside, as LiteRT's table): one step.
    for tensor, g, w in zip(model.origin.outputs, got, want, strict=True):
        step = 1 if tensor.name == "probs" else 0
        rule = check.Rule(atol=model.tolerance, rtol=model.rtol, int_step=step)
        assert check.compare([g], [w], rule) == [], (tensor.name, g, w)
    assert any(np.any(w != w.flat[0]) for w in want)  # not a degenerate test


def test_convolutions_are_rewritten(tmp_path: Path) -> None:
    """1x1 convolutions read two channels a step; one with over 32 KiB of weights is
    split by output channels; one of column stride 2 reads column pairs (tosa_layout.py)."""
    text = tflite_tosa.translate(tflite_reader.read(pointwise_net(tmp_path / "p.tflite")))
    # 9 groups of 32 outputs (4 KiB of weights each, whole workgroup tiles) and the narrow layer
    assert text.count("stride = array<i64: 1, 2>") == 10
    assert "tensor<1x2x6x64xi8>" in text and "tensor<1x2x6x144xi8>" in text
    assert "tosa.concat" in text and "tosa.bitwise_and" in text
    # Each group requantised on its own: int8 parts concatenated, not int32 sums.
    assert "tensor<1x2x3x32xi8>) -> tensor<1x2x3x288xi8>" in text
    text = tflite_tosa.translate(tflite_reader.read(wide_float_net(tmp_path / "f.tflite")))
    assert text.count("tosa.conv2d") == 3 and "tensor<1x1x1x96xf32>" in text
    text = tflite_tosa.translate(tflite_reader.read(strided_net(tmp_path / "s.tflite")))
    assert "tosa.pad" in text and "tensor<1x11x6x2xi8>" in text and "tensor<6x3x2x2xi8>" in text


def test_padding_of_whole_words_is_copied_as_words(tmp_path: Path) -> None:
    """An input of a multiple of 4 channels is padded as int32 (the zero point in every
    byte), the same bytes; 2 channels stay bytes.  Either as rows of pixels: [H][W x K]."""
    text = tflite_tosa.translate(tflite_reader.read(int8_net(tmp_path / "n.tflite")))
    assert "(tensor<8x12xi8>, !tosa.shape<4>, tensor<1xi8>) -> tensor<9x14xi8>" in text
    assert "(tensor<9x14xi8>, !tosa.shape<4>) -> tensor<1x9x7x2xi8>" in text
    assert " : tensor<1x4x3x4xi8> -> tensor<1x4x3x1xi32>" in text  # the bitcast
    assert "dense<-2139062144> : tensor<1xi32>" in text  # 0x80808080: zero point -128
    assert "(tensor<4x3xi32>, !tosa.shape<4>, tensor<1xi32>) -> tensor<6x5xi32>" in text
    assert "tensor<1x6x5x1xi32> -> tensor<1x6x5x4xi8>" in text


def test_pruned_channels_keep_the_one_op_requantisation(tmp_path: Path) -> None:
    """Pruned channels' biases near 2^30 no longer send a layer to the TOSA rescale; the
    first layer (2 of 6 channels pruned) computes only its 4 live channels and places the
    others' numbers; the last (1 of 3) computes all three."""
    text = tflite_tosa.translate(tflite_reader.read(pruned_net(tmp_path / "p.tflite")))
    assert "tosa.rescale" not in text and text.count("_multipliers: i32") == 3
    assert text.count("tensor.extract") == 1 and "-> tensor<1x3x4x4xi32>" in text


def test_translation_is_integer_for_int8(tmp_path: Path) -> None:
    lines = tflite_tosa.translate(tflite_reader.read(int8_net(tmp_path / "n.tflite"))).split("\n")
    assert not [line for line in lines if "xf32>" in line]  # the softmax too (a table)
    # The depthwise layer in linalg with int16 weights (formats/prescaled).
    assert len([line for line in lines if "conv2d" in line or "conv_2d" in line]) == 3
    assert len([line for line in lines if "linalg." in line and "xi16>" in line]) == 1
    assert any("tosa.gather" in line for line in lines)
    assert not any("DOUBLE_ROUND" in line for line in lines)


# -- Whole runs on QEMU against LiteRT --------------------------------------------------------



NEEDS_INPUTS = ("iree",)  # for the `tree` fixture (conftest.py)


@pytest.mark.upstream
@needs_qemu
@pytest.mark.parametrize("make", [int8_net, float_net], ids=lambda f: f.__name__)
def test_run_on_qemu_against_litert(tree: Path, tmp_path: Path, make) -> None:
    path = make(tmp_path / f"{make.__name__}.tflite")
    out = scons(tree, "run", f"MODEL={path}", "BOARD=qemu-virt").stdout
    assert "match LiteRT" in out and "PASS:" in out, out[-2000:]
    assert "worst element: output" in out
    again = scons(tree, "image", f"MODEL={path}", "BOARD=qemu-virt").stdout
    assert "IMPORT" not in again and "IREE " not in again  # a no-op rebuild does nothing
    # A changed helper of the translator translates again; the same MLIR compiles nothing.
    helper = tree / "site_scons" / "ireerv" / "formats" / "requant_generic.py"
    helper.write_text(helper.read_text() + f"# {make.__name__}\n")
    again = scons(tree, "image", f"MODEL={path}", "BOARD=qemu-virt").stdout
    assert "IMPORT" in again and "IREE " not in again, again


# kws-onnx: kws's float TFLite written as ONNX (tests/test_onnx_int8.py).
MLPERF_TINY = sorted(set(models.list_models()) - set(models.mlir_models()) - {"kws-onnx"})


def test_mlperf_tiny_folders() -> None:
    assert MLPERF_TINY == ["ad", "ad-float", "kws", "kws-float", "resnet8", "resnet8-float",
                           "vww", "vww-float"]
    for name in MLPERF_TINY:
        assert has_tflite(models.MODELS_DIR / name)


@pytest.mark.upstream
def test_mlperf_tiny_signatures(fetcher: Fetcher) -> None:
    require_input(fetcher, "mlperf-tiny")
    kws = load_model("kws")
    assert kws.source.stat().st_size == 53936
    x = kws.origin.inputs[0]
    assert (x.shape, x.dtype, x.zero_point) == ((1, 49, 10, 1), "i8", (83,))
    assert [s.shape for s in load_model("vww").inputs] == [(1, 96, 96, 3)]
    assert load_model("ad-float").inputs[0].dtype == "f32"


@pytest.mark.upstream
@needs_qemu
@pytest.mark.parametrize("name", MLPERF_TINY)
def test_mlperf_tiny_runs_on_qemu(tree: Path, fetcher: Fetcher, name: str) -> None:
    require_input(fetcher, "mlperf-tiny")
    out = scons(tree, "run", f"MODEL={name}", "BOARD=qemu-virt").stdout
    assert "match LiteRT" in out and "PASS:" in out, out[-2000:]


@pytest.mark.upstream
@pytest.mark.cluster
def test_vww_on_the_cluster(tree: Path, fetcher: Fetcher) -> None:
    """Weights staged from shared RAM (placement large), its largest layer split (kws on
    the cluster: test_harts_auto_runs_a_network_on_the_cluster)."""
    for needed in ("mlperf-tiny", "cluster-tb", "cv32e40p", "verilator"):
        require_input(fetcher, needed)
    out = scons(tree, "run", "MODEL=vww", "BOARD=cluster4", "REPEAT=1").stdout
    assert "PASS: 2 output elements match LiteRT" in out, out[-2000:]


def _shared_auto_and_one_hart(shared_runs: SharedRuns, fetcher: Fetcher,
                              model: str) -> dict[str, str]:
    """The runs of the published figures (the board's default HARTS=auto, and HARTS=1), made
    once for the session: each run's output."""
    for needed in ("mlperf-tiny", "cluster-tb", "cv32e40p", "verilator"):
        require_input(fetcher, needed)
    args = ("BOARD=cluster4", f"MODEL={model}")
    return {"auto": shared_runs.run(*args).stdout, "1": shared_runs.run(*args, "HARTS=1").stdout}


def _same_outputs(runs: dict[str, str]) -> bool:
    """Did both runs print the same output tensors (bit for bit)?"""
    outputs = {h: [line for line in text.splitlines() if line.startswith("OUTPUT ")]
               for h, text in runs.items()}
    return bool(outputs["auto"]) and outputs["auto"] == outputs["1"]


@pytest.mark.cluster
@pytest.mark.upstream
def test_harts_auto_runs_a_network_on_the_cluster(shared_runs: SharedRuns,
                                                   fetcher: Fetcher) -> None:
    """HARTS=auto: a team of the board's four harts, each dispatch site choosing how many
    to use (kws: its convolutions on two harts, from their own scratchpads, although IREE
    binds them to whole buffers); the outputs are one hart's, bit for bit."""
    runs = _shared_auto_and_one_hart(shared_runs, fetcher, "kws")
    out = runs["auto"]
    assert "PASS: 12 output elements match LiteRT" in out, out[-2000:]
    assert "harts: 4; workgroups per dispatch: 1x1x1 25x1x1" in out, out[-2000:]
    shares = re.search(r"cycles per hart on its shares: ([\d,]+), ([\d,]+)", out)
    assert shares and int(shares.group(2).replace(",", "")) > 1_000_000, out[-2000:]
    assert _same_outputs(runs)


def shortcut_net(path: Path) -> Path:
    """resnet8's first shortcut: an int8 1x1 CONV_2D of stride 2, 32x32x16 -> 16x16x32."""
    g = Graph()
    x = g.tensor("x", (1, 32, 32, 16), I8, scale=0.05, zero_point=-128)
    w = g.tensor("w", (32, 1, 1, 16), I8, _rng(31).integers(-127, 128, 512), [0.01] * 32,
                 [0] * 32)
    b = g.tensor("b", (32,), I32, _rng(32).integers(-500, 500, 32), [0.0005] * 32, [0] * 32)
    y = g.tensor("shortcut", (1, 16, 16, 32), I8, scale=0.05, zero_point=-10)
    g.op("CONV_2D", [x, w, b], [y], padding="SAME", stride=(2, 2))
    return save(g, path, [x], [y])


@pytest.mark.cluster
@pytest.mark.upstream
def test_harts_auto_copies_row_slices_of_strided_layers(tree: Path, fetcher: Fetcher,
                                                        tmp_path: Path) -> None:
    """resnet8's first shortcut with HARTS=auto: harts 1.. copy only the input rows its
    stride-2 convolution reads and write back only their own output rows
    (harts/hart_slices.py); the outputs are one hart's, bit for bit (qemu-virt's: one
    hart's integer arithmetic is the same on every board).  resnet8 itself took 100 s of
    the suite for the same check."""
    for needed in ("cluster-tb", "cv32e40p", "verilator"):
        require_input(fetcher, needed)
    path = shortcut_net(tmp_path / "shortcut.tflite")
    runs = {board: scons(tree, "run", f"MODEL={path}", f"BOARD={board}", "REPEAT=1",
                         "VERBOSE=1").stdout for board in ("cluster4", "qemu-virt")}
    auto = runs["cluster4"]
    assert "PASS: 8192 output elements match LiteRT" in auto, auto[-2000:]
    assert "harts: 4;" in auto, auto[-2000:]
    # The input: row 2y of 31 x 16 bytes, not the whole 15,376.
    rows = re.compile(r"\{0, \d+, \{0, 992, 0\}, 496u, -1, 0\}")
    assert any(rows.search(h.read_text())
               for h in (tree / "build" / "cluster4").glob("shortcut*/hart_local_check.h"))
    assert _same_outputs({"auto": auto, "1": runs["qemu-virt"]})


@pytest.mark.cluster
@pytest.mark.upstream
def test_harts_auto_keeps_staged_constants_on_the_cluster(shared_runs: SharedRuns,
                                                          fetcher: Fetcher) -> None:
    """HARTS=auto with placement large (ad): the weights are kept in the scratchpad the heap
    leaves free (most of ad's 270,912 bytes) by the warm-up call; with one hart every call
    stages the rest, with four harts 1-3 run the layers of the rest and keep their weights
    (parallel.c, delegate), also from the warm-up on; the harts' stacks, never needed, take
    none of hart 0's room; the outputs are one hart's, bit for bit."""
    runs = _shared_auto_and_one_hart(shared_runs, fetcher, "ad")
    assert "PASS: 640 output elements match LiteRT" in runs["auto"], runs["auto"][-2000:]
    for text in runs.values():  # the warm-up call keeps them: each call stages the rest
        calls = [int(c) for c in re.findall(r"^CYCLES call \d+ (\d+)$", text, re.M)]
        warm_up = re.search(r"^CYCLES warmup (\d+)$", text, re.M)
        assert len(calls) == 2 and calls[0] <= 1.02 * calls[1], text[-2000:]
        assert warm_up and int(warm_up.group(1)) > calls[1] / 2, text[-2000:]
    helpers = re.search(r"cycles per hart on its shares: [\d,]+, ([\d,]+)", runs["auto"])
    assert helpers and int(helpers.group(1).replace(",", "")) > 0, runs["auto"][-2000:]
    kept = {h: re.search(r"^MEMORY weight_cache (\d+)$", text, re.M) for h, text in runs.items()}
    assert kept["1"] and int(kept["1"].group(1)) > 150_000, runs["1"][-2000:]
    # At least one hart's: the harts' stacks take none of it, and where harts 1-3 run the
    # rest hart 0 needs no staging area (208,704 bytes against 192,256).
    assert kept["auto"] and int(kept["auto"].group(1)) >= int(kept["1"].group(1))
    assert _same_outputs(runs)
