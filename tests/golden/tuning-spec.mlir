// Tuned configurations of a test.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @apply_op_config(%op: !transform.any_op {transform.readonly},
                                            %config: !transform.any_param {transform.readonly}) {
    transform.annotate %op "compilation_info" = %config : !transform.any_op, !transform.any_param
    transform.yield
  }

  // conv_2d_nhwc_hwcf_1x25x5x64x1x2x32_i8xi8xi32: workgroup 0x1x0x64x0x0x0, parallel 1x1x5x2x0x0x0, reduction 0x0x0x0x1x1x2
  transform.named_sequence @tuned_0(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.conv_2d_nhwc_hwcf"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %v0 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d0, %v0 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %v1 = transform.param.constant 25 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d1, %v1 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %v2 = transform.param.constant 5 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d2, %v2 : !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %v3 = transform.param.constant 64 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d3, %v3 : !transform.param<i64>
      %d4 = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      %v4 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d4, %v4 : !transform.param<i64>
      %d5 = transform.match.structured.dim %s[5] : (!transform.any_op) -> !transform.param<i64>
      %v5 = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d5, %v5 : !transform.param<i64>
      %d6 = transform.match.structured.dim %s[6] : (!transform.any_op) -> !transform.param<i64>
      %v6 = transform.param.constant 32 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d6, %v6 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [0, 1, 0, 64, 0, 0, 0],
          vector_common_parallel = [1, 1, 5, 2, 0, 0, 0],
          vector_reduction = [0, 0, 0, 0, 1, 1, 2]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUConvTileAndDecomposeExpert>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  // matmul_like_64x64x64_i8xi8xi32: workgroup 4x64x0, parallel 4x4x0, reduction 0x0x2
  transform.named_sequence @tuned_1(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %v0 = transform.param.constant 64 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d0, %v0 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %v1 = transform.param.constant 64 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d1, %v1 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %v2 = transform.param.constant 64 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d2, %v2 : !transform.param<i64>
      transform.match.structured.body %s {contraction = ["arith.muli", "arith.addi"]} : !transform.any_op
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [4, 64, 0],
          vector_common_parallel = [4, 4, 0],
          vector_reduction = [0, 0, 2]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert, {enable_loop_peeling}>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  // unpack_elementwise_125x64_i32xi32xi32xi32xi32xi8: workgroup 128x64, parallel 8x8
  transform.named_sequence @tuned_2(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %v0 = transform.param.constant 125 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d0, %v0 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %v1 = transform.param.constant 64 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d1, %v1 : !transform.param<i64>
      %n = transform.match.structured.num_inputs %s : (!transform.any_op) -> !transform.param<i64>
      %vn = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %n, %vn : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [128, 64],
          vector_common_parallel = [8, 8]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert, {enable_loop_peeling}>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  transform.named_sequence @__kernel_config(%variant_op: !transform.any_op {transform.consumed})
      -> !transform.any_op {
    %res = transform.foreach_match in %variant_op
        @tuned_0 -> @apply_op_config,
        @tuned_1 -> @apply_op_config,
        @tuned_2 -> @apply_op_config
      : (!transform.any_op) -> !transform.any_op
    transform.yield %res : !transform.any_op
  }
}
