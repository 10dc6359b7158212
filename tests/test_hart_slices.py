"""Which bytes of a binding a dispatch's workgroups touch, from iree-compile's distribution."""

from __future__ import annotations

from ireerv.harts import hart_local, hart_slices
from ireerv.harts.hart_slices import EntrySlices, Slice

HEAD = "// -----// IR Dump After TileAndDistributeToWorkgroupsUsingForallOpPass (x) //----- //\n"
SUB = ("hal.interface.binding.subspan layout(#l) binding({b}) alignment(64) offset({o}) "
       "flags(Indirect) : !iree_tensor_ext.dispatch.tensor<{a}:tensor<{t}>>")
LOAD = ("iree_tensor_ext.dispatch.tensor.load {v}, offsets = [0, 0], sizes = [64, 64], "
        "strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<64x64xi8>> "
        "-> tensor<64x64xi8>")

# The int8 matmul as iree-compile distributes it over 32 workgroups of 2 rows.
MATMUL = HEAD + f"""func.func @m_dispatch_0_matmul() attributes {{}} {{
  %c0_i32 = arith.constant 0 : i32
  %c0 = arith.constant 0 : index
  %0 = {SUB.format(b=0, o="%c0", a="readonly", t="64x64xi8")}
  %1 = {SUB.format(b=1, o="%c0", a="readonly", t="64x64xi8")}
  %2 = {SUB.format(b=2, o="%c0", a="writeonly", t="64x64xi32")}
  %3 = {LOAD.format(v="%0")}
  %4 = {LOAD.format(v="%1")}
  %5 = tensor.empty() : tensor<64x64xi32>
  %6 = scf.forall (%arg0) = (0) to (64) step (2) shared_outs(%arg1 = %5) -> (tensor<64x64xi32>) {{
    %extracted_slice = tensor.extract_slice %3[%arg0, 0] [2, 64] [1, 1] : tensor<64x64xi8> to t
    %extracted_slice_0 = tensor.extract_slice %arg1[%arg0, 0] [2, 64] [1, 1] : tensor<64x64xi32>
    %7 = linalg.fill ins(%c0_i32 : i32) outs(%extracted_slice_0 : tensor<2x64xi32>) -> t
    %8 = linalg.generic {{}} ins(%extracted_slice, %4 : t, t) outs(%7 : t) {{
    }} -> tensor<2x64xi32>
    scf.forall.in_parallel {{
      tensor.parallel_insert_slice %8 into %arg1[%arg0, 0] [2, 64] [1, 1] : t into t
    }}
  }} {{mapping = [#iree_codegen.workgroup_mapping<x>]}}
  iree_tensor_ext.dispatch.tensor.store %6, %2, offsets = [0, 0], sizes = [64, 64], \
strides = [1, 1] : tensor<64x64xi32> -> !iree_tensor_ext.dispatch.tensor<writeonly:t>
  return
}}
"""


B_WHOLE = Slice(1, 0, (0, 0, 0), 4096)  # B: read whole, the whole subspan


def test_row_blocks_give_each_workgroup_its_rows() -> None:
    found = hart_slices.entry_slices(MATMUL)
    # A: 2 rows of 64 bytes per workgroup; B: all of it; C: 2 rows of 256 bytes.
    assert found == {"m_dispatch_0_matmul": EntrySlices(
        (32, 1, 1), (Slice(0, 0, (128, 0, 0), 128), B_WHOLE,
                     Slice(2, 0, (512, 0, 0), 512, filled=True)))}
    text = hart_local.header(None, True, {"m_dispatch_0_matmul": (3, 4)}, found,
                             order=["m_dispatch_0_matmul"])
    assert "{0x3u, 0x4u, 1, {32, 1, 1}, 0, 3, 0u}, /* 0: m_dispatch_0_matmul */" in text
    # C: each workgroup writes all its bytes (its own when a hart writes them back).
    assert ("  {0, 0, {128, 0, 0}, 128u, -1, 0}, \\\n  {1, 0, {0, 0, 0}, 4096u, -1, 0}, \\\n"
            "  {2, 0, {512, 0, 0}, 512u, -1, 1},") in text


def test_two_mapped_dimensions_and_a_normalised_forall() -> None:
    text = (MATMUL.replace("scf.forall (%arg0) = (0) to (64) step (2)",
                           "scf.forall (%arg0, %argc) = (0, 0) to (64, 64) step (2, 16)")
            .replace("%3[%arg0, 0] [2, 64]", "%3[%arg0, 0] [2, 64]")
            .replace("%arg1[%arg0, 0] [2, 64] [1, 1] : t into t",
                     "%arg1[%arg0, %argc] [2, 16] [1, 1] : t into t")
            .replace("workgroup_mapping<x>]", "workgroup_mapping<y>, "
                     "#iree_codegen.workgroup_mapping<x>]"))
    entry = hart_slices.entry_slices(text)["m_dispatch_0_matmul"]
    assert entry.counts == (4, 32, 1)
    # A follows y only; C moves 64 bytes with x and 512 with y, and spans 2 rows of 16.
    assert entry.slices == (Slice(0, 0, (0, 128, 0), 128), B_WHOLE,
                            Slice(2, 0, (64, 512, 0), 320))
    normal = MATMUL.replace("(%arg0) = (0) to (64) step (2)", "(%arg0) in (32)")
    assert hart_slices.entry_slices(normal)["m_dispatch_0_matmul"].counts == (32, 1, 1)


def test_offsets_from_affine_apply_and_sizes_from_index_constants() -> None:
    # A stride-2 convolution reads row 2y (an affine.apply of the induction variable);
    # IREE writes an insert's offsets and sizes as index constants after a tensor.cast.
    text = (MATMUL.replace("  %c0 = arith.constant 0 : index\n",
                           "  %c0 = arith.constant 0 : index\n  %c64 = arith.constant 64 : index\n")
            .replace("    %extracted_slice = tensor.extract_slice %3[%arg0, 0] [2, 64]",
                     "    %r = affine.apply affine_map<(d0) -> (d0 * 2 + 1)>(%arg0)\n"
                     "    %extracted_slice = tensor.extract_slice %3[%r, 0] [1, 64]")
            .replace("%arg1[%arg0, 0] [2, 64] [1, 1] : t into t",
                     "%arg1[%arg0, %c0] [2, %c64] [1, 1] : t into t"))
    entry = hart_slices.entry_slices(text)["m_dispatch_0_matmul"]
    # A: row 4w + 1 of 64 bytes; C: rows 2w and 2w + 1 as before.
    assert entry.slices == (Slice(0, 64, (256, 0, 0), 64), B_WHOLE,
                            Slice(2, 0, (512, 0, 0), 512, filled=True))
    # An affine.apply of another form, or of a value that does not follow the id: whole.
    for other in ("affine_map<(d0) -> (d0 floordiv 2)>(%arg0)",
                  "affine_map<(d0) -> (d0 * 2)>(%q)"):
        odd = text.replace("affine_map<(d0) -> (d0 * 2 + 1)>(%arg0)", other)
        found = hart_slices.entry_slices(odd)["m_dispatch_0_matmul"]
        assert found.slices[0] == Slice(0, 0, (0, 0, 0), 4096)


def test_without_the_plain_form_a_subspan_is_read_whole_or_its_binding_copied() -> None:
    moving, fixed = "moving", "whole subspan"
    cases = {
        # An offset computed from the induction variable: A read whole.
        MATMUL.replace("%3[%arg0, 0]", "%3[%9, 0]"): [(0, fixed), (1, fixed), (2, moving)],
        # The output's shared value starts from a loaded tensor, not tensor.empty().
        MATMUL.replace("shared_outs(%arg1 = %5)", "shared_outs(%arg1 = %4)"):
            [(0, moving), (1, fixed), (2, fixed)],
        # A subspan at an offset the IR does not give: its binding is copied whole.
        MATMUL.replace('offset(%c0) flags(Indirect) : !iree_tensor_ext.dispatch.tensor<readonly',
                       'offset(%c64) flags(Indirect) : !iree_tensor_ext.dispatch.tensor<readonly',
                       1): [(1, fixed), (2, moving)],
        # A dynamic slice size.
        MATMUL.replace("%3[%arg0, 0] [2, 64]", "%3[%arg0, 0] [%s, 64]"):
            [(0, fixed), (1, fixed), (2, moving)],
        # A read-write binding: copied whole.
        MATMUL.replace("writeonly:tensor<64x64xi32>>", "readwrite:tensor<64x64xi32>>", 1):
            [(0, moving), (1, fixed)],
        # A mapping IREE linearised (z:1): no workgroup counts, whole subspans only.
        MATMUL.replace("workgroup_mapping<x>", "workgroup_mapping<z:1>"):
            [(0, fixed), (1, fixed), (2, fixed)],
    }
    for text, expected in cases.items():
        found = hart_slices.entry_slices(text)["m_dispatch_0_matmul"]
        got = [(s.binding, moving if any(s.steps) else fixed) for s in found.slices]
        assert got == expected, text


PUSHED = """  %p0 = hal.interface.constant.load layout(#l) ordinal(0) : i32
  %p1 = hal.interface.constant.load layout(#l) ordinal(1) : i32
  %i0 = arith.index_castui %p0 : i32 to index
  %i1 = arith.index_castui %p1 : i32 to index
  %a:2 = util.assume.int
      %i0[<umin = 128, umax = 128, udiv = 128>, <umin = 256, umax = 256, udiv = 256>],
      %i1<umin = 0, umax = 4096, udiv = 64>
    : index, index
"""


def test_offsets_in_push_constants_count_from_their_values() -> None:
    # IREE binds whole buffers and passes each subspan's offset as a push constant.
    text = (MATMUL.replace("  %c0 = arith.constant 0 : index\n",
                           "  %c0 = arith.constant 0 : index\n  %c64 = arith.constant 64 : index\n"
                           + PUSHED)
            .replace("binding(0) alignment(64) offset(%c0)", "binding(0) offset(%a#1)")
            .replace("binding(1) alignment(64) offset(%c0)", "binding(1) offset(%a#0)")
            .replace("binding(2) alignment(64) offset(%c0)", "binding(2) offset(%c64)"))
    entry = hart_slices.entry_slices(text)["m_dispatch_0_matmul"]
    assert entry.slices == (Slice(0, 0, (128, 0, 0), 128, constant=1),
                            Slice(1, 0, (0, 0, 0), 4096, constant=0),
                            Slice(2, 64, (512, 0, 0), 512, filled=True))


def test_an_assumption_on_one_line_keeps_its_push_constant() -> None:
    # One operand: IREE prints the assumption on one line (vww's last 1x1 layer, whose
    # output offset differs between its two dispatches); its binding still gets a range.
    pushed = ("  %p0 = hal.interface.constant.load layout(#l) ordinal(0) : i32\n"
              "  %i0 = arith.index_castui %p0 : i32 to index\n"
              "  %a = util.assume.int %i0[<umin = 2304, umax = 2304, udiv = 2304>, "
              "<umin = 5760, umax = 5760, udiv = 5760>] : index\n")
    text = (MATMUL.replace("  %c0 = arith.constant 0 : index\n",
                           "  %c0 = arith.constant 0 : index\n" + pushed)
            .replace("binding(2) alignment(64) offset(%c0)", "binding(2) offset(%a)"))
    entry = hart_slices.entry_slices(text)["m_dispatch_0_matmul"]
    assert entry.slices[-1] == Slice(2, 0, (512, 0, 0), 512, constant=0, filled=True)


def test_a_subspan_of_another_form_leaves_its_binding_whole() -> None:
    # Several subspans of one binding: one with an offset of unknown form spoils it.
    text = MATMUL.replace(
        "  %3 = ", "  %x = hal.interface.binding.subspan layout(#l) binding(1) offset(%q + 4) "
        ": weird\n  %3 = ")
    entry = hart_slices.entry_slices(text)["m_dispatch_0_matmul"]
    assert [s.binding for s in entry.slices] == [0, 2]
