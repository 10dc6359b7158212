// Which ops iree-compile data-tiles on cluster4-pulp, read through
// --iree-preprocessing-transform-spec-filename (board.toml, [iree] preprocessing).
//
// Data tiling (--iree-global-opt-data-tiling) turns a matmul into packs of its
// operands, linalg.mmt4d and an unpack; with --iree-llvmcpu-enable-ukernels=mmt4d
// the mmt4d calls iree_uk_mmt4d, the board's cv.sdotsp.b kernel (mmt4d_sdotp.c).
// That pays for int8 only.  By itself IREE marks every matmul for data tiling
// (the pass AnnotateDataTilingHints), unless some op of the function already
// carries the mark `iree.opt.data_tiling`: then only the marked ops are tiled.
// So this spec marks each function (no linalg op, never tiled itself) and each
// int8 contraction.  f32 matmuls keep the board library's register tiles: with
// data tiling the 4x4 f32 matmul took 32,295 cycles instead of 11,823 (operands
// padded to 8x8 tiles, soft-float in a C loop).
// The marks only survive on named matmuls: the board's flag
// --iree-opt-generalize-matmul=false keeps them named until the mark is read.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @match_i8_contraction(%op: !transform.any_op {transform.readonly})
      -> !transform.any_op {
    // Named matmuls only: a convolution's body is a contraction's too, and a
    // convolution marked for data tiling fails the compile (with no message).
    transform.match.operation_name %op ["linalg.matmul", "linalg.batch_matmul"]
        : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      transform.match.structured.body %s {contraction = ["arith.muli", "arith.addi"]}
          : !transform.any_op
      %in = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.any_value
      %bits = transform.match.structured.elemental_bitwidth %in
          : (!transform.any_value) -> !transform.param<i64>
      %c8 = transform.param.constant 8 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %bits, %c8 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  transform.named_sequence @match_function(%op: !transform.any_op {transform.readonly})
      -> !transform.any_op {
    transform.match.operation_name %op ["util.func", "func.func"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }

  transform.named_sequence @mark(%op: !transform.any_op {transform.readonly}) {
    transform.annotate %op "iree.opt.data_tiling" : !transform.any_op
    transform.yield
  }

  transform.named_sequence @__transform_main(%module: !transform.any_op {transform.consumed}) {
    transform.foreach_match in %module
        @match_i8_contraction -> @mark,
        @match_function -> @mark
      : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
