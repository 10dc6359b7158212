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
// int8 convolutions (named ops, kept by board.toml's flag
// --iree-global-opt-experimental-disable-conv-generalization): IREE turns a
// convolution into a linalg.generic whose input map (oh + kh, ow + kw, c) the
// vectorizer refuses, so the tile was lowered to scalar loops with its sums in
// a stack buffer, loaded and stored for every multiply-add (kws depthwise 3x3:
// 15.4 instructions per MAC).  Kept as named ops, the conv pipeline
// (CPUConvTileAndDecomposeExpert) cuts them into 1-D convolutions and vectorizes
// those; the tiles below keep the sums in registers and the window unrolled.
// Vector dims run over output width (and a few output channels), never over
// contiguous int8 operands alone: LLVM loads such a vector as words and pulls
// each byte out with two shifts, where one lb would do.  The width tile must
// divide the width (5 for kws; 3 for depthwise and for 6- and 3-wide layers; 4
// otherwise), since a partial tile falls back to slow code (vww's 6x6x128
// pointwise: 23.6 M instructions before the 6 and 3 matches).
// Measured on qemu-virt (instructions per inference, outputs unchanged):
// kws 15.66 M -> 10.49 M (depthwise 1.11 M -> 0.45 M each: 5 outputs of one
// channel, 3 taps unrolled; first conv 10x4 3.10 M -> 1.38 M; pointwise
// 2.02 M -> 1.77 M, 5 x 2 tile), resnet8 102.4 M -> 43.9 M, vww 43.0 M ->
// 32.5 M, ad 1.75 M -> 1.14 M (its fully connected layers are 1x1
// convolutions now: 1 x 4 tile).
//
// The requantisation after each int8 convolution (TFLite's double rounding,
// written by the TFLite translator, site_scons/ireerv/formats/tosa_text.py) was
// ~22 instructions per output, as many as the 9 MACs of a depthwise output:
// where the sums are provably below 2^29 it is now (2x * m + 2^31) >> 32 and a
// rounding shift without abs and select, ~15 instructions, the same bits.
// qemu-virt, instructions per inference: kws 10.49 M -> 10.06 M (depthwise
// 0.45 M -> 0.40 M each, first conv 1.38 M -> 1.33 M, pointwise 1.77 M ->
// 1.72 M each), resnet8 43.94 M -> 43.16 M, vww 32.48 M -> 31.31 M, ad 1.141 M
// -> 1.131 M; kws on cluster4 11.48 M -> 11.00 M cycles.
// int8 1x1 convolutions arrive from the TFLite translator as 1x2 convolutions of
// stride 2 over half the channels (the same bytes and sums, tflite_tosa.py
// _channel_pairs), and the 1x1 tiles below unroll those two taps (a kw tile of 2;
// on a true 1x1 convolution it changes nothing): 57 instructions per 20 MACs
// where one channel a step took 30 per 10, the loop's branch and pointer steps
// shared.  kws on cluster4: 11.00 M -> 10.49 M cycles.  Four taps spill (135
// instructions per 40 MACs).
// A convolution of column stride 2 and even kernel width arrives as one of
// column stride 1 over column pairs (tosa_layout.py column_pairs: kws's first
// layer, 10x4 over one channel, becomes 10x2 over two); the two channels of a
// pair are one step of its loop (@match_conv_w5_c2): 16 byte loads and 59
// instructions per 20 MACs, where the 12-column window was loaded as words and
// cut into bytes (71).  kws on cluster4: 10.49 M -> 10.31 M cycles.
// A first layer over three input channels (RGB: resnet8, vww) takes a tile of 4
// output columns by 2 output channels (@match_conv_c3): 24 MACs per 63-instruction
// step over one channel where 4 x 1 took 12 per 36; resnet8's first layer on
// cluster4 2.02 M -> 1.73 M cycles (4.56 -> 3.90 per MAC).  3 channels a step
// (4 x 1) spilled: 124 instructions per 36 MACs; 4 x 4 spilled too.
// The copies into padded buffers (a linalg.generic that yields its input, over
// 64 channels) move 16 bytes a step as words (@match_i8_copy); IREE's default
// moved a halfword and two bytes: kws 10.16 M -> 10.08 M cycles on cluster4.
// Tried and left out (kws unless named): pointwise 5 x 4 tile 1.77 M -> 2.6-2.9 M
// (LLVM computes all 20 products before the adds and spills; the same with
// --pre-RA-sched=list-burr, worse with --enable-misched=false); int8 matmul
// 4 x 4 tile, qmatmul64 848,657 -> 1,111,361 instructions (spills likewise);
// pointwise k step 2, 1.77 M -> 2.07 M (two adjacent channels load as a halfword
// and two shifts); first conv 5 x 2 tile with kw step 1, 1.38 M -> 1.55 M
// (strided window read as bytes then sign-extended with two shifts each); first
// conv tiled over output rows: the conv pipeline does not decompose it (scalar
// code, 9.2 M); fusing the depthwise padding into its producer
// (--iree-dispatch-creation-enable-fuse-padding-into-linalg-producer-ops): 0.09 M
// of copies -> 0.54 M; into its consumer: no change; --unroll-count: no change.
//
// One workgroup per matmul up to 64 x 64: on one hart that is fastest.  Images
// with HARTS > 1 merge iree-tiles-harts.mlir ([iree] harts_library) in ahead of
// this file: f32 row blocks of 2.
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

  transform.named_sequence @match_dw_w5(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.depthwise_conv_2d_nhwc_hwc"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d0 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %v0 = transform.param.constant 5 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d0, %v0 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [0, 1, 5, 64, 0, 0],
                                                  vector_common_parallel = [1, 1, 5, 1, 0, 0],
                                                  vector_reduction = [0, 0, 0, 0, 1, 3]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUConvTileAndDecomposeExpert>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  transform.named_sequence @match_dw(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.depthwise_conv_2d_nhwc_hwc"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [0, 1, 0, 64, 0, 0],
                                                  vector_common_parallel = [1, 1, 3, 1, 0, 0],
                                                  vector_reduction = [0, 0, 0, 0, 1, 3]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUConvTileAndDecomposeExpert>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  transform.named_sequence @match_conv_w5_c2(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.conv_2d_nhwc_hwcf"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d0 = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      %v0 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi gt %d0, %v0 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %v1 = transform.param.constant 5 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d1, %v1 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[6] : (!transform.any_op) -> !transform.param<i64>
      %v2 = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d2, %v2 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [0, 1, 5, 64, 0, 0, 0],
                                                  vector_common_parallel = [1, 1, 5, 1, 0, 0, 0],
                                                  vector_reduction = [0, 0, 0, 0, 1, 4, 2]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUConvTileAndDecomposeExpert>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  transform.named_sequence @match_conv_w5(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.conv_2d_nhwc_hwcf"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d0 = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      %v0 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi gt %d0, %v0 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %v1 = transform.param.constant 5 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d1, %v1 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [0, 1, 5, 64, 0, 0, 0],
                                                  vector_common_parallel = [1, 1, 5, 1, 0, 0, 0],
                                                  vector_reduction = [0, 0, 0, 0, 1, 4, 1]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUConvTileAndDecomposeExpert>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  transform.named_sequence @match_conv_c3(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.conv_2d_nhwc_hwcf"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d0 = transform.match.structured.dim %s[6] : (!transform.any_op) -> !transform.param<i64>
      %v0 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d0, %v0 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      %v1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi gt %d1, %v1 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [0, 1, 0, 64, 0, 0, 0],
                                                  vector_common_parallel = [1, 1, 4, 2, 0, 0, 0],
                                                  vector_reduction = [0, 0, 0, 0, 1, 3, 1]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUConvTileAndDecomposeExpert>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  transform.named_sequence @match_conv(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.conv_2d_nhwc_hwcf"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d0 = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      %v0 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi gt %d0, %v0 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [0, 1, 0, 64, 0, 0, 0],
                                                  vector_common_parallel = [1, 1, 4, 1, 0, 0, 0],
                                                  vector_reduction = [0, 0, 0, 0, 1, 3, 1]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUConvTileAndDecomposeExpert>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  transform.named_sequence @match_pw_w5(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.conv_2d_nhwc_hwcf"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d0 = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      %v0 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d0, %v0 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %v1 = transform.param.constant 5 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d1, %v1 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [0, 1, 5, 64, 0, 0, 0],
                                                  vector_common_parallel = [1, 1, 5, 2, 0, 0, 0],
                                                  vector_reduction = [0, 0, 0, 0, 1, 2, 1]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUConvTileAndDecomposeExpert>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  transform.named_sequence @match_fc(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.conv_2d_nhwc_hwcf"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d0 = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      %v0 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d0, %v0 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %v1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d1, %v1 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [0, 1, 1, 64, 0, 0, 0],
                                                  vector_common_parallel = [1, 1, 1, 4, 0, 0, 0],
                                                  vector_reduction = [0, 0, 0, 0, 1, 2, 1]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUConvTileAndDecomposeExpert>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  transform.named_sequence @match_pw_w6(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.conv_2d_nhwc_hwcf"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d0 = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      %v0 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d0, %v0 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %v1 = transform.param.constant 6 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d1, %v1 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [0, 1, 0, 64, 0, 0, 0],
                                                  vector_common_parallel = [1, 1, 3, 2, 0, 0, 0],
                                                  vector_reduction = [0, 0, 0, 0, 1, 2, 1]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUConvTileAndDecomposeExpert>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  transform.named_sequence @match_pw_w3(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.conv_2d_nhwc_hwcf"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d0 = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      %v0 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d0, %v0 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %v1 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d1, %v1 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [0, 1, 0, 64, 0, 0, 0],
                                                  vector_common_parallel = [1, 1, 3, 2, 0, 0, 0],
                                                  vector_reduction = [0, 0, 0, 0, 1, 2, 1]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUConvTileAndDecomposeExpert>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  transform.named_sequence @match_pw(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.conv_2d_nhwc_hwcf"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %d0 = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      %v0 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d0, %v0 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [0, 1, 0, 64, 0, 0, 0],
                                                  vector_common_parallel = [1, 1, 4, 2, 0, 0, 0],
                                                  vector_reduction = [0, 0, 0, 0, 1, 2, 1]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUConvTileAndDecomposeExpert>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  transform.named_sequence @match_i8_copy(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c3 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c3 : !transform.param<i64>
      transform.match.structured.dim %s[all] {parallel} : !transform.any_op
      transform.match.structured.body %s {passthrough} : !transform.any_op
      %d = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %c64 = transform.param.constant 64 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d, %c64 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    %config = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [0, 0, 0],
                                                  vector_common_parallel = [1, 1, 16]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUBufferOpsTileAndVectorize>>
        -> !transform.any_param
    transform.yield %m, %config : !transform.any_op, !transform.any_param
  }

  transform.named_sequence @__kernel_config(%variant_op: !transform.any_op {transform.consumed})
      -> !transform.any_op {
    %res = transform.foreach_match in %variant_op
        @match_i8_copy -> @apply_op_config,
        @match_f32_matmul_rows -> @apply_op_config,
        @match_f32_matmul -> @apply_op_config,
        @match_i8_matmul -> @apply_op_config,
        @match_i8_pointwise -> @apply_op_config,
        @match_dw_w5 -> @apply_op_config,
        @match_dw -> @apply_op_config,
        @match_conv_w5_c2 -> @apply_op_config,
        @match_conv_w5 -> @apply_op_config,
        @match_conv_c3 -> @apply_op_config,
        @match_conv -> @apply_op_config,
        @match_pw_w5 -> @apply_op_config,
        @match_fc -> @apply_op_config,
        @match_pw_w6 -> @apply_op_config,
        @match_pw_w3 -> @apply_op_config,
        @match_pw -> @apply_op_config
      : (!transform.any_op) -> !transform.any_op
    transform.yield %res : !transform.any_op
  }
}
