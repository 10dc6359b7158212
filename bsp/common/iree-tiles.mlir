// Tile sizes for f32 and int8 matmuls on cores without an FPU (rv32imc), read by
// iree-compile through --iree-codegen-transform-dialect-library (board.toml,
// [iree] library).
//
// IREE's default for RISC-V without the V extension is a 7-or-8 x 32 vector
// tile: each fused multiply-add becomes hundreds of soft-float calls, most of
// them on masked-off or peeled lanes, and the kernel is ~100 KB.  A 1 x 4
// register tile keeps four accumulators in callee-saved registers across the
// soft-float calls and computes exactly one multiply and one add per
// multiply-accumulate.  Loop peeling keeps the main loop free of lane masks
// (a remainder loop handles N not divisible by 4).  Only a 3-loop multiply-add
// contraction matches; every other op keeps IREE's own choice.
//
// With a static M of 4 or more (SHAPES=static, the default), a 4 x 1 tile over
// four steps of k instead: one B element serves four rows and LLVM unrolls the
// k loop with constant addresses (matmul 16x16x16 on
// cluster4: kernel 46,346 -> 40,536 cycles).  With dynamic shapes that tile is
// slower (the row stride is a register and spills), so those keep 1 x 4.
//
// int8 matmuls (i8 x i8 summed in i32): IREE's default 8 x 32 tile holds 256
// sums, far more than the 31 registers, so two thirds of the kernel's
// instructions were loads and stores (int8 64x64x64 on cluster4: 1,789,591
// cycles).  A 2 x 4 register tile keeps its eight sums in registers and loads
// six operands per eight multiply-adds: 926,967 cycles, the same bits.  Row
// blocks of 2 (32 workgroups at M = 64) were 3 % faster on one hart than one
// workgroup, so both files use them.
//
// One workgroup per matmul up to 64 x 64: on one hart that is fastest.  Images
// with HARTS > 1 use iree-tiles-harts.mlir ([iree] harts_library), the same
// file with f32 row blocks of 2.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @apply_op_config(%op: !transform.any_op {transform.readonly},
                                            %config: !transform.any_param {transform.readonly}) {
    transform.annotate %op "compilation_info" = %config : !transform.any_op, !transform.any_param
    transform.yield
  }

  transform.named_sequence @match_f32_matmul_rows(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c3 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c3 : !transform.param<i64>
      // (rows, columns, k): a contraction with two reduction loops is no matmul.
      transform.match.structured.dim %s[0, 1] {parallel} : !transform.any_op
      transform.match.structured.dim %s[2] {reduction} : !transform.any_op
      transform.match.structured.body %s {contraction = ["arith.mulf", "arith.addf"]}
          : !transform.any_op
      %rows = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %c4 = transform.param.constant 4 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %rows, %c4 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [64, 64, 0],
                                                  vector_common_parallel = [4, 1, 0],
                                                  vector_reduction = [0, 0, 4]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert, {enable_loop_peeling}>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  transform.named_sequence @match_f32_matmul(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c3 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c3 : !transform.param<i64>
      // (rows, columns, k): a contraction with two reduction loops is no matmul.
      transform.match.structured.dim %s[0, 1] {parallel} : !transform.any_op
      transform.match.structured.dim %s[2] {reduction} : !transform.any_op
      transform.match.structured.body %s {contraction = ["arith.mulf", "arith.addf"]}
          : !transform.any_op
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [64, 64, 0],
                                                  vector_common_parallel = [1, 4, 0],
                                                  vector_reduction = [0, 0, 1]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert, {enable_loop_peeling}>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  transform.named_sequence @match_i8_matmul(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c3 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c3 : !transform.param<i64>
      // (rows, columns, k): a contraction with two reduction loops is no matmul.
      transform.match.structured.dim %s[0, 1] {parallel} : !transform.any_op
      transform.match.structured.dim %s[2] {reduction} : !transform.any_op
      transform.match.structured.body %s {contraction = ["arith.muli", "arith.addi"]}
          : !transform.any_op
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [2, 64, 0],
                                                  vector_common_parallel = [2, 4, 0],
                                                  vector_reduction = [0, 0, 1]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert, {enable_loop_peeling}>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  // Pointwise layers of rank 4 ((rows, columns, channels, k): a 1x1 convolution that
  // IREE keeps as a 4-loop contraction): the same 2x4 int8 register tile as above, over
  // the columns and the output channels.
  transform.named_sequence @match_i8_pointwise(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c4 = transform.param.constant 4 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c4 : !transform.param<i64>
      transform.match.structured.dim %s[0, 1, 2] {parallel} : !transform.any_op
      transform.match.structured.dim %s[3] {reduction} : !transform.any_op
      transform.match.structured.body %s {contraction = ["arith.muli", "arith.addi"]}
          : !transform.any_op
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [1, 2, 64, 0],
                                                  vector_common_parallel = [1, 2, 4, 0],
                                                  vector_reduction = [0, 0, 0, 1]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert, {enable_loop_peeling}>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  transform.named_sequence @__kernel_config(%variant_op: !transform.any_op {transform.consumed})
      -> !transform.any_op {
    %res = transform.foreach_match in %variant_op
        @match_f32_matmul_rows -> @apply_op_config,
        @match_f32_matmul -> @apply_op_config,
        @match_i8_matmul -> @apply_op_config,
        @match_i8_pointwise -> @apply_op_config
      : (!transform.any_op) -> !transform.any_op
    transform.yield %res : !transform.any_op
  }
}
