// kws on cluster4-pulp: the configuration of each pointwise layer's unpack and
// requantisation (one dispatch: linalg.unpack of the mmt4d's int32 tiles, fused into
// the requantisation's linalg.generic over 125 x 64 outputs).
module attributes {transform.with_named_sequence} {
  transform.named_sequence @apply_op_config(%op: !transform.any_op {transform.readonly},
                                            %config: !transform.any_param {transform.readonly}) {
    transform.annotate %op "compilation_info" = %config : !transform.any_op, !transform.any_param
    transform.yield
  }

  // generic 125x64, five inputs (the unpacked sums and four per-channel columns)
  transform.named_sequence @tuned_0(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c2 = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c2 : !transform.param<i64>
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %c125 = transform.param.constant 125 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d0, %c125 : !transform.param<i64>
      %n = transform.match.structured.num_inputs %s : (!transform.any_op) -> !transform.param<i64>
      %c5 = transform.param.constant 5 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %n, %c5 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [128,64], vector_common_parallel = [8,8]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert, {enable_loop_peeling}>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  // generic 125x64, one input: a pointwise layer's img2col copy, fused into the pack
  // (k = 64: the first layer's copy, k = 40, keeps the board's scalar one)
  transform.named_sequence @tuned_1(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c2 = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c2 : !transform.param<i64>
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %c125 = transform.param.constant 125 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d0, %c125 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %c64 = transform.param.constant 64 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d1, %c64 : !transform.param<i64>
      %n = transform.match.structured.num_inputs %s : (!transform.any_op) -> !transform.param<i64>
      %c1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %n, %c1 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [128,64], vector_common_parallel = [8,32]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert, {enable_loop_peeling}>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  transform.named_sequence @__kernel_config(%variant_op: !transform.any_op {transform.consumed})
      -> !transform.any_op {
    %res = transform.foreach_match in %variant_op
        @tuned_0 -> @apply_op_config,
        @tuned_1 -> @apply_op_config
      : (!transform.any_op) -> !transform.any_op
    transform.yield %res : !transform.any_op
  }
}
