// What images whose dispatches several harts share (HARTS > 1 or auto) change in
// the board's library ([iree] harts_library, merged ahead of [iree] library:
// these matchers come first and win where they match; every other op keeps the
// library's choice).
//
// f32 matmuls of 8 rows or more run in blocks of 2 rows, one workgroup each
// (8, 16 and 32 workgroups at M = 16, 32 and 64), so the harts can share them:
// a 2 x 1 tile over four steps of k, the library's 4 x 1 tile cut to the block.
// Blocks of 2 rather than 4 let hart 0, which reads the operands in one cycle,
// take one block more than the others (parallel.c): f32 64x64 on 4 harts
// 20,467,930 cycles with blocks of 4, 20,396,168 with blocks of 2 (1 x 4 tile).
// With blocks of 4 at M = 16 (4 workgroups) HARTS=auto kept the dispatch on
// hart 0 (383,590 cycles a call against 336,777 with blocks of 2).  Smaller
// matmuls keep the library's one workgroup: at M = 4 two blocks of 2 on one
// hart cost 251 cycles a call (11,835 -> 12,086) and gain nothing.
// A dynamic M (SHAPES=dynamic: dim reads as negative) keeps the 1 x 4 tile in
// blocks of 2 rows.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @apply_op_config(%op: !transform.any_op {transform.readonly},
                                            %config: !transform.any_param {transform.readonly}) {
    transform.annotate %op "compilation_info" = %config : !transform.any_op, !transform.any_param
    transform.yield
  }

  transform.named_sequence @harts_f32_matmul_rows(%op: !transform.any_op {transform.readonly})
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
      %c8 = transform.param.constant 8 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %rows, %c8 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [2, 64, 0],
                                                  vector_common_parallel = [2, 1, 0],
                                                  vector_reduction = [0, 0, 4]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert, {enable_loop_peeling}>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  transform.named_sequence @harts_f32_matmul_dynamic(%op: !transform.any_op {transform.readonly})
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
      %c0 = transform.param.constant 0 : i64 -> !transform.param<i64>
      transform.match.param.cmpi lt %rows, %c0 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [2, 64, 0],
                                                  vector_common_parallel = [1, 4, 0],
                                                  vector_reduction = [0, 0, 1]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert, {enable_loop_peeling}>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  transform.named_sequence @__kernel_config(%variant_op: !transform.any_op {transform.consumed})
      -> !transform.any_op {
    %res = transform.foreach_match in %variant_op
        @harts_f32_matmul_rows -> @apply_op_config,
        @harts_f32_matmul_dynamic -> @apply_op_config
      : (!transform.any_op) -> !transform.any_op
    transform.yield %res : !transform.any_op
  }
}
