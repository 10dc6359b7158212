"""The ranges of a board kernel's bindings, from iree-compile's executable sources: the
form IREE v3.9.0 gives the spec's conv_q8 entry point (bsp/cluster4-pulp), its shapes
push constants or, where every call site shares one, literals."""

from __future__ import annotations

from ireerv.harts import hart_local, kernel_slices
from ireerv.harts.hart_slices import Slice

_LAYOUT = "#hal.pipeline.layout<constants = 9, bindings = [...]>"
_LOADS = "\n".join(
    f"  %{k} = hal.interface.constant.load layout({_LAYOUT}) ordinal({k}) : i32" for k in range(9))
_CASTS = "\n".join(f"  %{k + 9} = arith.index_castui %{k} : i32 to index" for k in range(9))
# Push constants: 0-3 the offsets of input, table, weights, output; then iw, c, ow, f, sh.
CONV_Q8 = f"""
hal.executable.export public @conv_q8 ordinal(0) layout({_LAYOUT}) count(%arg0: !hal.device, \
%arg1: index) -> (index, index, index) {{
  %c1 = arith.constant 1 : index
  hal.return %arg1, %c1, %c1 : index, index, index
}}
func.func @conv_q8() attributes {{iree.opt.data_tiling}} {{
  %c3 = arith.constant 3 : index
  %c2 = arith.constant 2 : index
  %c0_i32 = arith.constant 0 : i32
{_LOADS}
{_CASTS}
  %18:9 = util.assume.int
      %9[<umin = 28288, umax = 28288, udiv = 28288>, <umin = 704, umax = 704, udiv = 704>],
      %10[<umin = 0, umax = 0>, <umin = 0, umax = 0>],
      %11[<umin = 384, umax = 384, udiv = 384>, <umin = 320, umax = 320, udiv = 320>],
      %12[<umin = 704, umax = 704, udiv = 704>, <umin = 19136, umax = 19136, udiv = 19136>],
      %13[<umin = 97, umax = 97, udiv = 97>, <umin = 96, umax = 96, udiv = 96>],
      %14[<umin = 4, umax = 4, udiv = 4>, <umin = 8, umax = 8, udiv = 8>],
      %15[<umin = 48, umax = 48, udiv = 48>, <umin = 48, umax = 48, udiv = 48>],
      %16[<umin = 8, umax = 8, udiv = 8>, <umin = 16, umax = 16, udiv = 16>],
      %17[<umin = 2, umax = 2, udiv = 2>, <umin = 1, umax = 1>]
    : index, index, index, index, index, index, index, index, index
  %workgroup_id_x = hal.interface.workgroup.id[0] : index
  %20 = hal.interface.binding.subspan layout({_LAYOUT}) binding(0) alignment(64) \
offset(%18#0) flags("ReadOnly|Indirect") : memref<?xi8>{{%19}}
  %21 = hal.interface.binding.subspan layout({_LAYOUT}) binding(1) alignment(64) \
offset(%18#2) flags("ReadOnly|Indirect") : memref<?xi8>{{%19}}
  %22 = hal.interface.binding.subspan layout({_LAYOUT}) binding(0) alignment(64) \
offset(%18#1) flags("ReadOnly|Indirect") : memref<?xi32>{{%19}}
  %23 = hal.interface.binding.subspan layout({_LAYOUT}) binding(2) alignment(64) \
offset(%18#3) flags(Indirect) : memref<?xi8>{{%19}}
  %b0, %o0, %s0, %t0 = iree_codegen.extract_strided_metadata %20 : \
memref<?xi8> -> memref<i8>, index, index, index
  %b1, %o1, %s1, %t1 = iree_codegen.extract_strided_metadata %21 : \
memref<?xi8> -> memref<i8>, index, index, index
  %b2, %o2, %s2, %t2 = iree_codegen.extract_strided_metadata %22 : \
memref<?xi32> -> memref<i32>, index, index, index
  %b3, %o3, %s3, %t3 = iree_codegen.extract_strided_metadata %23 : \
memref<?xi8> -> memref<i8>, index, index, index
  call @ireerv_conv_q8(%b0, %o0, %b1, %o1, %b2, %o2, %b3, %o3, %18#4, %18#5, %18#6, %18#7, \
%c3, %c3, %18#8, %c2, %c0_i32, %workgroup_id_x) : (memref<i8>, index) -> ()
  return
}}
"""


def test_each_binding_gets_its_range_as_a_product_of_push_constants() -> None:
    """Input rows x*sh .. x*sh+kh of iw*c bytes (kh = 3, a literal: every site's), the
    weights and the columns whole, output row x of ow*f bytes, every byte written."""
    (masks, slices), = kernel_slices.entry_slices(CONV_Q8).values()
    assert masks == (0b011, 0b100)  # input, columns and weights read; the output written
    assert slices == (
        Slice(0, 0, (1, 0, 0), 3, 0, False, (8, 4, 5), (4, 5)),  # input
        Slice(0, 0, (0, 0, 0), 24, 1, False, (), (7,)),  # 6 words a filter
        Slice(1, 0, (0, 0, 0), 9, 2, False, (), (7, 5)),  # weights: f * 3 * 3 * c
        Slice(2, 0, (1, 0, 0), 1, 3, True, (6, 7), (6, 7)))  # output row


def test_a_binding_the_rules_do_not_account_for_is_copied_whole() -> None:
    """The output's binding also read through another view, another kernel, or a grid of
    more than rows: no ranges at all."""
    shared = CONV_Q8.replace("binding(2) alignment(64) offset(%18#3)",
                             "binding(0) alignment(64) offset(%18#3)")
    assert kernel_slices.entry_slices(shared) == {}
    other = CONV_Q8.replace("call @ireerv_conv_q8", "call @other_kernel")
    assert kernel_slices.entry_slices(other) == {}
    # Workgroups in y too: workgroup x is no longer a row.
    grid = CONV_Q8.replace("hal.return %arg1, %c1, %c1", "hal.return %arg1, %arg1, %c1")
    assert kernel_slices.entry_slices(grid) == {}


def test_the_header_lists_the_terms_and_the_kernels() -> None:
    masks, slices = {}, {}
    kernel_slices.add_entries(CONV_Q8, masks, slices)
    text = hart_local.header(None, False, masks, slices, {}, ["conv_q8"])
    assert "  {0x3u, 0x4u, 1, {4294967295, 1, 1}, 0, 4, 0u}, /* 0: conv_q8 */" in text
    # Each term a byte, ordinal + 1: sh (8), iw (4), c (5) for the input's step.
    assert "  {0, 0, {1, 0, 0}, 3u, 0, 0, 0x60509u, 0x605u}, \\" in text
    assert "  {2, 0, {1, 0, 0}, 1u, 3, 1, 0x807u, 0x807u}, \\" in text
    assert "#define RUNNER_HART_LOCAL_KERNELS 1" in text
    assert "#define RUNNER_HART_LOCAL_KERNELS 0" in hart_local.header("no per-hart memory")


def test_the_depthwise_kernel_has_its_channels_for_filters() -> None:
    """ireerv_dw_q8 (no f): weights of w_bytes (a word: 3x3 windows), 8 words a channel (the
    filter's rows and the requantisation's figures); a workgroup's `rows` output rows of ow * c,
    from `span` input rows (here a literal, as where every call site shares one)."""
    call = ("call @ireerv_conv_q8(%b0, %o0, %b1, %o1, %b2, %o2, %b3, %o3, %18#4, %18#5, "
            "%18#6, %18#7, %c3, %c3, %18#8, %c2, %c0_i32, %workgroup_id_x)")
    assert call in CONV_Q8
    depthwise = CONV_Q8.replace(call, (
        "call @ireerv_dw_q8(%b0, %o0, %b1, %o1, %b2, %o2, %b3, %o3, %18#4, %18#5, %18#6, "
        "%c3, %c3, %18#8, %c2, %18#7, %c3, %c0_i32, %c4, %workgroup_id_x)")).replace(
        "%c3 = arith.constant 3 : index",
        "%c3 = arith.constant 3 : index\n  %c4 = arith.constant 4 : index")
    (masks, slices), = kernel_slices.entry_slices(depthwise).values()
    assert masks == (0b011, 0b100)
    assert slices == (
        Slice(0, 0, (1, 0, 0), 3, 0, False, (7, 8, 4, 5), (4, 5)),  # input rows
        Slice(0, 0, (0, 0, 0), 32, 1, False, (), (5,)),  # 8 words a channel
        Slice(1, 0, (0, 0, 0), 4, 2, False, (), ()),  # weights: a word
        Slice(2, 0, (1, 0, 0), 1, 3, True, (7, 6, 5), (7, 6, 5)))  # output rows
