// Tuned kernel configurations of vww on cluster4, written by `scons tune` (budget 8).
// Each matcher takes one dispatch at exactly its loop bounds; the board's library
// configures every other op.  One call: 16,665,635 cycles untuned, 15,157,113 tuned.
// Every candidate and its cycles: cluster4.json beside this file.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @apply_op_config(%op: !transform.any_op {transform.readonly},
                                            %config: !transform.any_param {transform.readonly}) {
    transform.annotate %op "compilation_info" = %config : !transform.any_op, !transform.any_param
    transform.yield
  }

  // conv_2d_nhwc_hwcf_1x1x1x2x1x1x256_i8xi8xi32: workgroup 0x1x0x64x0x0x0, parallel 1x1x1x2x0x0x0, reduction 0x0x0x0x1x1x2
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
      %v1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d1, %v1 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %v2 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d2, %v2 : !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %v3 = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d3, %v3 : !transform.param<i64>
      %d4 = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      %v4 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d4, %v4 : !transform.param<i64>
      %d5 = transform.match.structured.dim %s[5] : (!transform.any_op) -> !transform.param<i64>
      %v5 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d5, %v5 : !transform.param<i64>
      %d6 = transform.match.structured.dim %s[6] : (!transform.any_op) -> !transform.param<i64>
      %v6 = transform.param.constant 256 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d6, %v6 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [0, 1, 0, 64, 0, 0, 0],
          vector_common_parallel = [1, 1, 1, 2, 0, 0, 0],
          vector_reduction = [0, 0, 0, 0, 1, 1, 2]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUConvTileAndDecomposeExpert>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  // conv_2d_nhwc_hwcf_1x3x3x24x1x2x128_i8xi8xi32: workgroup 0x3x0x64x0x0x0, parallel 1x1x3x4x0x0x0, reduction 0x0x0x0x1x2x1
  transform.named_sequence @tuned_1(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.conv_2d_nhwc_hwcf"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %v0 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d0, %v0 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %v1 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d1, %v1 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %v2 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d2, %v2 : !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %v3 = transform.param.constant 24 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d3, %v3 : !transform.param<i64>
      %d4 = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      %v4 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d4, %v4 : !transform.param<i64>
      %d5 = transform.match.structured.dim %s[5] : (!transform.any_op) -> !transform.param<i64>
      %v5 = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d5, %v5 : !transform.param<i64>
      %d6 = transform.match.structured.dim %s[6] : (!transform.any_op) -> !transform.param<i64>
      %v6 = transform.param.constant 128 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d6, %v6 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [0, 3, 0, 64, 0, 0, 0],
          vector_common_parallel = [1, 1, 3, 4, 0, 0, 0],
          vector_reduction = [0, 0, 0, 0, 1, 2, 1]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUConvTileAndDecomposeExpert>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  // conv_2d_nhwc_hwcf_1x3x3x32x1x2x64_i8xi8xi32: workgroup 0x3x0x64x0x0x0, parallel 1x1x3x4x0x0x0, reduction 0x0x0x0x1x2x1
  transform.named_sequence @tuned_2(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.conv_2d_nhwc_hwcf"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %v0 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d0, %v0 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %v1 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d1, %v1 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %v2 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d2, %v2 : !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %v3 = transform.param.constant 32 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d3, %v3 : !transform.param<i64>
      %d4 = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      %v4 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d4, %v4 : !transform.param<i64>
      %d5 = transform.match.structured.dim %s[5] : (!transform.any_op) -> !transform.param<i64>
      %v5 = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d5, %v5 : !transform.param<i64>
      %d6 = transform.match.structured.dim %s[6] : (!transform.any_op) -> !transform.param<i64>
      %v6 = transform.param.constant 64 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d6, %v6 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [0, 3, 0, 64, 0, 0, 0],
          vector_common_parallel = [1, 1, 3, 4, 0, 0, 0],
          vector_reduction = [0, 0, 0, 0, 1, 2, 1]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUConvTileAndDecomposeExpert>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  // conv_2d_nhwc_hwcf_1x6x6x20x1x2x64_i8xi8xi32: workgroup 0x1x0x64x0x0x0, parallel 1x1x3x4x0x0x0, reduction 0x0x0x0x1x2x1
  transform.named_sequence @tuned_3(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.conv_2d_nhwc_hwcf"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %v0 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d0, %v0 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %v1 = transform.param.constant 6 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d1, %v1 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %v2 = transform.param.constant 6 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d2, %v2 : !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %v3 = transform.param.constant 20 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d3, %v3 : !transform.param<i64>
      %d4 = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      %v4 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d4, %v4 : !transform.param<i64>
      %d5 = transform.match.structured.dim %s[5] : (!transform.any_op) -> !transform.param<i64>
      %v5 = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d5, %v5 : !transform.param<i64>
      %d6 = transform.match.structured.dim %s[6] : (!transform.any_op) -> !transform.param<i64>
      %v6 = transform.param.constant 64 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d6, %v6 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [0, 1, 0, 64, 0, 0, 0],
          vector_common_parallel = [1, 1, 3, 4, 0, 0, 0],
          vector_reduction = [0, 0, 0, 0, 1, 2, 1]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUConvTileAndDecomposeExpert>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  // conv_2d_nhwc_hwcf_1x6x6x28x1x2x64_i8xi8xi32: workgroup 0x1x0x64x0x0x0, parallel 1x1x3x4x0x0x0, reduction 0x0x0x0x1x2x1
  transform.named_sequence @tuned_4(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.conv_2d_nhwc_hwcf"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %v0 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d0, %v0 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %v1 = transform.param.constant 6 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d1, %v1 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %v2 = transform.param.constant 6 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d2, %v2 : !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %v3 = transform.param.constant 28 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d3, %v3 : !transform.param<i64>
      %d4 = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      %v4 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d4, %v4 : !transform.param<i64>
      %d5 = transform.match.structured.dim %s[5] : (!transform.any_op) -> !transform.param<i64>
      %v5 = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d5, %v5 : !transform.param<i64>
      %d6 = transform.match.structured.dim %s[6] : (!transform.any_op) -> !transform.param<i64>
      %v6 = transform.param.constant 64 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d6, %v6 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [0, 1, 0, 64, 0, 0, 0],
          vector_common_parallel = [1, 1, 3, 4, 0, 0, 0],
          vector_reduction = [0, 0, 0, 0, 1, 2, 1]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUConvTileAndDecomposeExpert>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  // conv_2d_nhwc_hwcf_1x6x6x32x1x2x64_i8xi8xi32: workgroup 0x1x0x64x0x0x0, parallel 1x1x3x4x0x0x0, reduction 0x0x0x0x1x2x1
  transform.named_sequence @tuned_5(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.conv_2d_nhwc_hwcf"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %v0 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d0, %v0 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %v1 = transform.param.constant 6 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d1, %v1 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %v2 = transform.param.constant 6 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d2, %v2 : !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %v3 = transform.param.constant 32 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d3, %v3 : !transform.param<i64>
      %d4 = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      %v4 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d4, %v4 : !transform.param<i64>
      %d5 = transform.match.structured.dim %s[5] : (!transform.any_op) -> !transform.param<i64>
      %v5 = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d5, %v5 : !transform.param<i64>
      %d6 = transform.match.structured.dim %s[6] : (!transform.any_op) -> !transform.param<i64>
      %v6 = transform.param.constant 64 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d6, %v6 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [0, 1, 0, 64, 0, 0, 0],
          vector_common_parallel = [1, 1, 3, 4, 0, 0, 0],
          vector_reduction = [0, 0, 0, 0, 1, 2, 1]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUConvTileAndDecomposeExpert>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  // conv_2d_nhwc_hwcf_1x6x6x60x1x2x64_i8xi8xi32: workgroup 0x1x0x64x0x0x0, parallel 1x1x3x4x0x0x0, reduction 0x0x0x0x1x2x1
  transform.named_sequence @tuned_6(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.conv_2d_nhwc_hwcf"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %v0 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d0, %v0 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %v1 = transform.param.constant 6 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d1, %v1 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %v2 = transform.param.constant 6 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d2, %v2 : !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %v3 = transform.param.constant 60 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d3, %v3 : !transform.param<i64>
      %d4 = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      %v4 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d4, %v4 : !transform.param<i64>
      %d5 = transform.match.structured.dim %s[5] : (!transform.any_op) -> !transform.param<i64>
      %v5 = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d5, %v5 : !transform.param<i64>
      %d6 = transform.match.structured.dim %s[6] : (!transform.any_op) -> !transform.param<i64>
      %v6 = transform.param.constant 64 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d6, %v6 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [0, 1, 0, 64, 0, 0, 0],
          vector_common_parallel = [1, 1, 3, 4, 0, 0, 0],
          vector_reduction = [0, 0, 0, 0, 1, 2, 1]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUConvTileAndDecomposeExpert>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  // conv_2d_nhwc_hwcf_1x6x6x128x1x2x32_i8xi8xi32: workgroup 0x6x0x64x0x0x0, parallel 1x1x6x2x0x0x0, reduction 0x0x0x0x1x2x1
  transform.named_sequence @tuned_7(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.conv_2d_nhwc_hwcf"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %v0 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d0, %v0 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %v1 = transform.param.constant 6 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d1, %v1 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %v2 = transform.param.constant 6 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d2, %v2 : !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %v3 = transform.param.constant 128 : i64 -> !transform.param<i64>
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
      lowering_config = #iree_cpu.lowering_config<distribution = [0, 6, 0, 64, 0, 0, 0],
          vector_common_parallel = [1, 1, 6, 2, 0, 0, 0],
          vector_reduction = [0, 0, 0, 0, 1, 2, 1]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUConvTileAndDecomposeExpert>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  // conv_2d_nhwc_hwcf_1x12x12x64x1x2x16_i8xi8xi32: workgroup 0x1x0x64x0x0x0, parallel 1x1x3x4x0x0x0, reduction 0x0x0x0x1x2x1
  transform.named_sequence @tuned_8(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.conv_2d_nhwc_hwcf"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %v0 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d0, %v0 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %v1 = transform.param.constant 12 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d1, %v1 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %v2 = transform.param.constant 12 : i64 -> !transform.param<i64>
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
      %v6 = transform.param.constant 16 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d6, %v6 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [0, 1, 0, 64, 0, 0, 0],
          vector_common_parallel = [1, 1, 3, 4, 0, 0, 0],
          vector_reduction = [0, 0, 0, 0, 1, 2, 1]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUConvTileAndDecomposeExpert>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  // conv_2d_nhwc_hwcf_1x12x12x64x1x2x32_i8xi8xi32: workgroup 0x1x0x64x0x0x0, parallel 1x1x3x4x0x0x0, reduction 0x0x0x0x1x2x1
  transform.named_sequence @tuned_9(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.conv_2d_nhwc_hwcf"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %v0 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d0, %v0 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %v1 = transform.param.constant 12 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d1, %v1 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %v2 = transform.param.constant 12 : i64 -> !transform.param<i64>
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
          vector_common_parallel = [1, 1, 3, 4, 0, 0, 0],
          vector_reduction = [0, 0, 0, 0, 1, 2, 1]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUConvTileAndDecomposeExpert>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  // conv_2d_nhwc_hwcf_1x24x24x32x1x2x8_i8xi16xi32: workgroup 0x1x0x64x0x0x0, parallel 1x1x3x4x0x0x0, reduction 0x0x0x0x1x2x1
  transform.named_sequence @tuned_10(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.conv_2d_nhwc_hwcf"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %v0 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d0, %v0 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %v1 = transform.param.constant 24 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d1, %v1 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %v2 = transform.param.constant 24 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d2, %v2 : !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %v3 = transform.param.constant 32 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d3, %v3 : !transform.param<i64>
      %d4 = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      %v4 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d4, %v4 : !transform.param<i64>
      %d5 = transform.match.structured.dim %s[5] : (!transform.any_op) -> !transform.param<i64>
      %v5 = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d5, %v5 : !transform.param<i64>
      %d6 = transform.match.structured.dim %s[6] : (!transform.any_op) -> !transform.param<i64>
      %v6 = transform.param.constant 8 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d6, %v6 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [0, 1, 0, 64, 0, 0, 0],
          vector_common_parallel = [1, 1, 3, 4, 0, 0, 0],
          vector_reduction = [0, 0, 0, 0, 1, 2, 1]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUConvTileAndDecomposeExpert>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  // conv_2d_nhwc_hwcf_1x24x24x32x1x2x16_i8xi16xi32: workgroup 0x1x0x64x0x0x0, parallel 1x1x3x4x0x0x0, reduction 0x0x0x0x1x2x1
  transform.named_sequence @tuned_11(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.conv_2d_nhwc_hwcf"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %v0 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d0, %v0 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %v1 = transform.param.constant 24 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d1, %v1 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %v2 = transform.param.constant 24 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d2, %v2 : !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %v3 = transform.param.constant 32 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d3, %v3 : !transform.param<i64>
      %d4 = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      %v4 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d4, %v4 : !transform.param<i64>
      %d5 = transform.match.structured.dim %s[5] : (!transform.any_op) -> !transform.param<i64>
      %v5 = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d5, %v5 : !transform.param<i64>
      %d6 = transform.match.structured.dim %s[6] : (!transform.any_op) -> !transform.param<i64>
      %v6 = transform.param.constant 16 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d6, %v6 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [0, 1, 0, 64, 0, 0, 0],
          vector_common_parallel = [1, 1, 3, 4, 0, 0, 0],
          vector_reduction = [0, 0, 0, 0, 1, 2, 1]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUConvTileAndDecomposeExpert>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  // conv_2d_nhwc_hwcf_1x48x48x16x1x2x4_i8xi16xi32: workgroup 0x1x0x64x0x0x0, parallel 1x1x3x4x0x0x0, reduction 0x0x0x0x1x2x1
  transform.named_sequence @tuned_12(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.conv_2d_nhwc_hwcf"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %v0 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d0, %v0 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %v1 = transform.param.constant 48 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d1, %v1 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %v2 = transform.param.constant 48 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d2, %v2 : !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %v3 = transform.param.constant 16 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d3, %v3 : !transform.param<i64>
      %d4 = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      %v4 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d4, %v4 : !transform.param<i64>
      %d5 = transform.match.structured.dim %s[5] : (!transform.any_op) -> !transform.param<i64>
      %v5 = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d5, %v5 : !transform.param<i64>
      %d6 = transform.match.structured.dim %s[6] : (!transform.any_op) -> !transform.param<i64>
      %v6 = transform.param.constant 4 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d6, %v6 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [0, 1, 0, 64, 0, 0, 0],
          vector_common_parallel = [1, 1, 3, 4, 0, 0, 0],
          vector_reduction = [0, 0, 0, 0, 1, 2, 1]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUConvTileAndDecomposeExpert>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  // depthwise_conv_2d_nhwc_hwc_1x3x3x128x3x3_i8xi8xi32: workgroup 0x3x0x64x0x0, parallel 1x1x3x2x0x0, reduction 0x0x0x0x1x3
  transform.named_sequence @tuned_13(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.depthwise_conv_2d_nhwc_hwc"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %v0 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d0, %v0 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %v1 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d1, %v1 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %v2 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d2, %v2 : !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %v3 = transform.param.constant 128 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d3, %v3 : !transform.param<i64>
      %d4 = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      %v4 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d4, %v4 : !transform.param<i64>
      %d5 = transform.match.structured.dim %s[5] : (!transform.any_op) -> !transform.param<i64>
      %v5 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d5, %v5 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [0, 3, 0, 64, 0, 0],
          vector_common_parallel = [1, 1, 3, 2, 0, 0],
          vector_reduction = [0, 0, 0, 0, 1, 3]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUConvTileAndDecomposeExpert>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  // depthwise_conv_2d_nhwc_hwc_1x3x3x256x3x3_i8xi8xi32: workgroup 0x3x0x64x0x0, parallel 1x1x3x2x0x0, reduction 0x0x0x0x1x3
  transform.named_sequence @tuned_14(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.depthwise_conv_2d_nhwc_hwc"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %v0 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d0, %v0 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %v1 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d1, %v1 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %v2 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d2, %v2 : !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %v3 = transform.param.constant 256 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d3, %v3 : !transform.param<i64>
      %d4 = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      %v4 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d4, %v4 : !transform.param<i64>
      %d5 = transform.match.structured.dim %s[5] : (!transform.any_op) -> !transform.param<i64>
      %v5 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d5, %v5 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [0, 3, 0, 64, 0, 0],
          vector_common_parallel = [1, 1, 3, 2, 0, 0],
          vector_reduction = [0, 0, 0, 0, 1, 3]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUConvTileAndDecomposeExpert>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  // depthwise_conv_2d_nhwc_hwc_1x6x6x64x3x3_i8xi16xi32: workgroup 0x6x0x64x0x0, parallel 1x1x6x1x0x0, reduction 0x0x0x0x1x3
  transform.named_sequence @tuned_15(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.depthwise_conv_2d_nhwc_hwc"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %v0 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d0, %v0 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %v1 = transform.param.constant 6 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d1, %v1 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %v2 = transform.param.constant 6 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d2, %v2 : !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %v3 = transform.param.constant 64 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d3, %v3 : !transform.param<i64>
      %d4 = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      %v4 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d4, %v4 : !transform.param<i64>
      %d5 = transform.match.structured.dim %s[5] : (!transform.any_op) -> !transform.param<i64>
      %v5 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d5, %v5 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [0, 6, 0, 64, 0, 0],
          vector_common_parallel = [1, 1, 6, 1, 0, 0],
          vector_reduction = [0, 0, 0, 0, 1, 3]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUConvTileAndDecomposeExpert>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  // depthwise_conv_2d_nhwc_hwc_1x6x6x128x3x3_i8xi8xi32: workgroup 0x6x0x64x0x0, parallel 1x1x6x1x0x0, reduction 0x0x0x0x1x3
  transform.named_sequence @tuned_16(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.depthwise_conv_2d_nhwc_hwc"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %v0 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d0, %v0 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %v1 = transform.param.constant 6 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d1, %v1 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %v2 = transform.param.constant 6 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d2, %v2 : !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %v3 = transform.param.constant 128 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d3, %v3 : !transform.param<i64>
      %d4 = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      %v4 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d4, %v4 : !transform.param<i64>
      %d5 = transform.match.structured.dim %s[5] : (!transform.any_op) -> !transform.param<i64>
      %v5 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d5, %v5 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [0, 6, 0, 64, 0, 0],
          vector_common_parallel = [1, 1, 6, 1, 0, 0],
          vector_reduction = [0, 0, 0, 0, 1, 3]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUConvTileAndDecomposeExpert>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  // depthwise_conv_2d_nhwc_hwc_1x12x12x32x3x3_i8xi16xi32: workgroup 0x1x0x64x0x0, parallel 1x1x6x1x0x0, reduction 0x0x0x0x1x3
  transform.named_sequence @tuned_17(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.depthwise_conv_2d_nhwc_hwc"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %v0 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d0, %v0 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %v1 = transform.param.constant 12 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d1, %v1 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %v2 = transform.param.constant 12 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d2, %v2 : !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %v3 = transform.param.constant 32 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d3, %v3 : !transform.param<i64>
      %d4 = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      %v4 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d4, %v4 : !transform.param<i64>
      %d5 = transform.match.structured.dim %s[5] : (!transform.any_op) -> !transform.param<i64>
      %v5 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d5, %v5 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [0, 1, 0, 64, 0, 0],
          vector_common_parallel = [1, 1, 6, 1, 0, 0],
          vector_reduction = [0, 0, 0, 0, 1, 3]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUConvTileAndDecomposeExpert>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  // depthwise_conv_2d_nhwc_hwc_1x12x12x64x3x3_i8xi16xi32: workgroup 0x1x0x64x0x0, parallel 1x1x6x1x0x0, reduction 0x0x0x0x1x3
  transform.named_sequence @tuned_18(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.depthwise_conv_2d_nhwc_hwc"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %v0 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d0, %v0 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %v1 = transform.param.constant 12 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d1, %v1 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %v2 = transform.param.constant 12 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d2, %v2 : !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %v3 = transform.param.constant 64 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d3, %v3 : !transform.param<i64>
      %d4 = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      %v4 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d4, %v4 : !transform.param<i64>
      %d5 = transform.match.structured.dim %s[5] : (!transform.any_op) -> !transform.param<i64>
      %v5 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d5, %v5 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [0, 1, 0, 64, 0, 0],
          vector_common_parallel = [1, 1, 6, 1, 0, 0],
          vector_reduction = [0, 0, 0, 0, 1, 3]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUConvTileAndDecomposeExpert>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  // depthwise_conv_2d_nhwc_hwc_1x24x24x16x3x3_i8xi16xi32: workgroup 0x1x0x64x0x0, parallel 1x1x6x1x0x0, reduction 0x0x0x0x1x3
  transform.named_sequence @tuned_19(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.depthwise_conv_2d_nhwc_hwc"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %v0 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d0, %v0 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %v1 = transform.param.constant 24 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d1, %v1 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %v2 = transform.param.constant 24 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d2, %v2 : !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %v3 = transform.param.constant 16 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d3, %v3 : !transform.param<i64>
      %d4 = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      %v4 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d4, %v4 : !transform.param<i64>
      %d5 = transform.match.structured.dim %s[5] : (!transform.any_op) -> !transform.param<i64>
      %v5 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d5, %v5 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [0, 1, 0, 64, 0, 0],
          vector_common_parallel = [1, 1, 6, 1, 0, 0],
          vector_reduction = [0, 0, 0, 0, 1, 3]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUConvTileAndDecomposeExpert>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  // depthwise_conv_2d_nhwc_hwc_1x24x24x32x3x3_i8xi16xi32: workgroup 0x1x0x64x0x0, parallel 1x1x6x1x0x0, reduction 0x0x0x0x1x3
  transform.named_sequence @tuned_20(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.depthwise_conv_2d_nhwc_hwc"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %v0 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d0, %v0 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %v1 = transform.param.constant 24 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d1, %v1 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %v2 = transform.param.constant 24 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d2, %v2 : !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %v3 = transform.param.constant 32 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d3, %v3 : !transform.param<i64>
      %d4 = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      %v4 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d4, %v4 : !transform.param<i64>
      %d5 = transform.match.structured.dim %s[5] : (!transform.any_op) -> !transform.param<i64>
      %v5 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d5, %v5 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [0, 1, 0, 64, 0, 0],
          vector_common_parallel = [1, 1, 6, 1, 0, 0],
          vector_reduction = [0, 0, 0, 0, 1, 3]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUConvTileAndDecomposeExpert>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  // depthwise_conv_2d_nhwc_hwc_1x48x48x8x3x3_i8xi16xi32: workgroup 0x1x0x64x0x0, parallel 1x1x6x1x0x0, reduction 0x0x0x0x1x3
  transform.named_sequence @tuned_21(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.depthwise_conv_2d_nhwc_hwc"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %v0 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d0, %v0 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %v1 = transform.param.constant 48 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d1, %v1 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %v2 = transform.param.constant 48 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d2, %v2 : !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %v3 = transform.param.constant 8 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d3, %v3 : !transform.param<i64>
      %d4 = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      %v4 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d4, %v4 : !transform.param<i64>
      %d5 = transform.match.structured.dim %s[5] : (!transform.any_op) -> !transform.param<i64>
      %v5 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d5, %v5 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [0, 1, 0, 64, 0, 0],
          vector_common_parallel = [1, 1, 6, 1, 0, 0],
          vector_reduction = [0, 0, 0, 0, 1, 3]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUConvTileAndDecomposeExpert>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  transform.named_sequence @__kernel_config(%variant_op: !transform.any_op {transform.consumed})
      -> !transform.any_op {
    %res = transform.foreach_match in %variant_op
        @tuned_0 -> @apply_op_config,
        @tuned_1 -> @apply_op_config,
        @tuned_2 -> @apply_op_config,
        @tuned_3 -> @apply_op_config,
        @tuned_4 -> @apply_op_config,
        @tuned_5 -> @apply_op_config,
        @tuned_6 -> @apply_op_config,
        @tuned_7 -> @apply_op_config,
        @tuned_8 -> @apply_op_config,
        @tuned_9 -> @apply_op_config,
        @tuned_10 -> @apply_op_config,
        @tuned_11 -> @apply_op_config,
        @tuned_12 -> @apply_op_config,
        @tuned_13 -> @apply_op_config,
        @tuned_14 -> @apply_op_config,
        @tuned_15 -> @apply_op_config,
        @tuned_16 -> @apply_op_config,
        @tuned_17 -> @apply_op_config,
        @tuned_18 -> @apply_op_config,
        @tuned_19 -> @apply_op_config,
        @tuned_20 -> @apply_op_config,
        @tuned_21 -> @apply_op_config
      : (!transform.any_op) -> !transform.any_op
    transform.yield %res : !transform.any_op
  }
}
