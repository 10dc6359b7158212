// Which ops iree-compile data-tiles on cluster4-pulp, and which convolutions it
// hands to the board's own kernel, read through
// --iree-preprocessing-transform-spec-filename (board.toml, [iree] preprocessing).
//
// A convolution the kernel takes becomes a dispatch of the executable below
// (@ireerv_conv): its entry point calls ireerv_conv_s8, declared `hal.import.static`
// and left undefined in the kernel object (IREE links no object into a static
// library); the image links it from the board's `kernel_sources`.
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
// IREE generalizes named matmuls before it reads the marks, and a mark does not
// survive that: the board's flag --iree-opt-generalize-matmul=false keeps them.
// int8 convolutions of one row of taps (pointwise layers: a 1x1 convolution, or
// the 1x2 one of stride 2 over channel pairs the TFLite translator makes of it,
// tosa_layout.py channel_pairs) become matmuls here (img2col: for these a copy
// of the input, which IREE fuses into the pack), and are marked once their unit
// dimension is folded away (data tiling takes one row dimension, not 1 x rows;
// the folding runs over the whole function, as IREE's own does later: kws's other
// layers took the same cycles).
module attributes {transform.with_named_sequence} {
  // int8 convolutions of 3x3 taps, and of one tap and stride 2, whose filters are a
  // multiple of 4 and whose input channels are too, or are 3 (a first layer: padded
  // to 4 with zero weights), starting from a fill (the bias is added later: the
  // board's flag --iree-global-opt-detach-elementwise-from-named-ops): the board's
  // kernel, ireerv_conv_s8 (conv_sdotp.c), one workgroup per output row.  (A 1x1
  // convolution of stride 1 is a pointwise layer, data-tiled below.)  The weights go
  // to it in blocks of 4 filters, [F/4][KH][KW][C/4][4 filters][4 channels]: one
  // word of each filter after another (relaid at compile time).  Through IREE's own
  // code these convolutions took 2.7 cycles a MAC; data tiling them needs an
  // img2col copy the scratchpad cannot hold, and IREE v3.9.0 miscompiles it when
  // it tiles it (docs/boards.md).
  stream.executable private @ireerv_conv {
    stream.executable.export public @conv_s8 workgroups(%oh: index) -> (index, index, index) {
      %one = arith.constant 1 : index
      stream.return %oh, %one, %one : index, index, index
    }
    builtin.module {
      func.func private @ireerv_conv_s8(%in: memref<i8>, %in_offset: index,
          %w: memref<i8>, %w_offset: index, %sums: memref<i32>, %sums_offset: index,
          %iw: index, %c: index, %ow: index, %f: index, %kh: index, %kw: index,
          %stride: index, %fill: i32, %row: index)
          attributes {hal.import.static, llvm.bareptr = true}
      func.func @conv_s8(%b_in: !stream.binding, %b_w: !stream.binding,
          %b_sums: !stream.binding, %ih: index, %iw: index, %c: index, %oh: index,
          %ow: index, %f: index, %kh: index, %kw: index, %stride: index, %fill: i32) {
        %zero = arith.constant 0 : index
        %row = stream.dispatch.workgroup.id[0] : index
        %in_pixels = arith.muli %ih, %iw : index
        %in_n = arith.muli %in_pixels, %c : index
        %window = arith.muli %kh, %kw : index
        %taps = arith.muli %window, %c : index
        %w_n = arith.muli %f, %taps : index
        %out_pixels = arith.muli %oh, %ow : index
        %sums_n = arith.muli %out_pixels, %f : index
        %in = stream.binding.subspan %b_in[%zero] : !stream.binding -> memref<?xi8>{%in_n}
        %w = stream.binding.subspan %b_w[%zero] : !stream.binding -> memref<?xi8>{%w_n}
        %sums = stream.binding.subspan %b_sums[%zero] : !stream.binding -> memref<?xi32>{%sums_n}
        %in_base, %in_offset, %in_size, %in_stride = iree_codegen.extract_strided_metadata %in
            : memref<?xi8> -> memref<i8>, index, index, index
        %w_base, %w_offset, %w_size, %w_stride = iree_codegen.extract_strided_metadata %w
            : memref<?xi8> -> memref<i8>, index, index, index
        %s_base, %s_offset, %s_size, %s_stride = iree_codegen.extract_strided_metadata %sums
            : memref<?xi32> -> memref<i32>, index, index, index
        func.call @ireerv_conv_s8(%in_base, %in_offset, %w_base, %w_offset, %s_base,
            %s_offset, %iw, %c, %ow, %f, %kh, %kw, %stride, %fill, %row)
            : (memref<i8>, index, memref<i8>, index, memref<i32>, index, index, index,
               index, index, index, index, index, i32, index) -> ()
        return
      }
    }
  }

  // The kernel's sums [1][OH][OW][F], starting from `fill`: x [1][IH][IW][C] (padded
  // already), w [KH][KW][C][F] (the convolution's).
  util.func private @ireerv_conv_s8(%x: tensor<1x?x?x?xi8>, %w: tensor<?x?x?x?xi8>,
      %fill: i32, %stride: index) -> tensor<1x?x?x?xi32>
      attributes {inlining_policy = #util.inline.always} {
    %zero = arith.constant 0 : index
    %one = arith.constant 1 : index
    %two = arith.constant 2 : index
    %three = arith.constant 3 : index
    %four = arith.constant 4 : index
    %ih = tensor.dim %x, %one : tensor<1x?x?x?xi8>
    %iw = tensor.dim %x, %two : tensor<1x?x?x?xi8>
    %c = tensor.dim %x, %three : tensor<1x?x?x?xi8>
    %kh = tensor.dim %w, %zero : tensor<?x?x?x?xi8>
    %kw = tensor.dim %w, %one : tensor<?x?x?x?xi8>
    %f = tensor.dim %w, %three : tensor<?x?x?x?xi8>
    %oh = affine.apply affine_map<()[s0, s1, s2] -> ((s0 - s1) floordiv s2 + 1)>()[%ih, %kh, %stride]
    %ow = affine.apply affine_map<()[s0, s1, s2] -> ((s0 - s1) floordiv s2 + 1)>()[%iw, %kw, %stride]
    %c4 = arith.divui %c, %four : index
    %f4 = arith.divui %f, %four : index
    %split = tensor.expand_shape %w [[0], [1], [2, 3], [4, 5]]
        output_shape [%kh, %kw, %c4, 4, %f4, 4]
        : tensor<?x?x?x?xi8> into tensor<?x?x?x4x?x4xi8>
    %empty = tensor.empty(%f4, %kh, %kw, %c4) : tensor<?x?x?x?x4x4xi8>
    %blocked = linalg.transpose ins(%split : tensor<?x?x?x4x?x4xi8>)
        outs(%empty : tensor<?x?x?x?x4x4xi8>) permutation = [4, 0, 1, 2, 5, 3]
    %r = flow.dispatch @ireerv_conv::@conv_s8[%oh](%x, %blocked, %ih, %iw, %c, %oh, %ow, %f,
        %kh, %kw, %stride, %fill)
        : (tensor<1x?x?x?xi8>{%ih, %iw, %c}, tensor<?x?x?x?x4x4xi8>{%f4, %kh, %kw, %c4},
           index, index, index, index, index, index, index, index, index, i32)
        -> tensor<1x?x?x?xi32>{%oh, %ow, %f}
    util.return %r : tensor<1x?x?x?xi32>
  }

  util.func private @ireerv_conv_s8_s1(%x: tensor<1x?x?x?xi8>, %w: tensor<?x?x?x?xi8>, %fill: i32)
      -> tensor<1x?x?x?xi32> attributes {inlining_policy = #util.inline.always} {
    %stride = arith.constant 1 : index
    %r = util.call @ireerv_conv_s8(%x, %w, %fill, %stride)
        : (tensor<1x?x?x?xi8>, tensor<?x?x?x?xi8>, i32, index) -> tensor<1x?x?x?xi32>
    util.return %r : tensor<1x?x?x?xi32>
  }

  util.func private @ireerv_conv_s8_s2(%x: tensor<1x?x?x?xi8>, %w: tensor<?x?x?x?xi8>, %fill: i32)
      -> tensor<1x?x?x?xi32> attributes {inlining_policy = #util.inline.always} {
    %stride = arith.constant 2 : index
    %r = util.call @ireerv_conv_s8(%x, %w, %fill, %stride)
        : (tensor<1x?x?x?xi8>, tensor<?x?x?x?xi8>, i32, index) -> tensor<1x?x?x?xi32>
    util.return %r : tensor<1x?x?x?xi32>
  }

  util.func private @ireerv_conv_s8_s1_padded(%x: tensor<1x?x?x?xi8>, %w: tensor<?x?x?x?xi8>,
      %fill: i32) -> tensor<1x?x?x?xi32> attributes {inlining_policy = #util.inline.always} {
    %stride = arith.constant 1 : index
    %r = util.call @ireerv_conv_s8_padded(%x, %w, %fill, %stride)
        : (tensor<1x?x?x?xi8>, tensor<?x?x?x?xi8>, i32, index) -> tensor<1x?x?x?xi32>
    util.return %r : tensor<1x?x?x?xi32>
  }

  util.func private @ireerv_conv_s8_s2_padded(%x: tensor<1x?x?x?xi8>, %w: tensor<?x?x?x?xi8>,
      %fill: i32) -> tensor<1x?x?x?xi32> attributes {inlining_policy = #util.inline.always} {
    %stride = arith.constant 2 : index
    %r = util.call @ireerv_conv_s8_padded(%x, %w, %fill, %stride)
        : (tensor<1x?x?x?xi8>, tensor<?x?x?x?xi8>, i32, index) -> tensor<1x?x?x?xi32>
    util.return %r : tensor<1x?x?x?xi32>
  }

  // A layer of 3 channels: padded to 4 with zero weights (the rows of its windows would
  // start mid-word).  The weights' padding is an increase IREE does not compute at
  // compile time (the board's --iree-opt-const-expr-max-size-increase-threshold=0):
  // resnet8's padding and relayout take 5,237 cycles a call.
  util.func private @ireerv_conv_s8_padded(%x: tensor<1x?x?x?xi8>, %w: tensor<?x?x?x?xi8>,
      %fill: i32, %stride: index) -> tensor<1x?x?x?xi32>
      attributes {inlining_policy = #util.inline.always} {
    %zero = arith.constant 0 : index
    %one = arith.constant 1 : index
    %c0_i8 = arith.constant 0 : i8
    %x4 = tensor.pad %x low[%zero, %zero, %zero, %zero] high[%zero, %zero, %zero, %one] {
    ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
      tensor.yield %c0_i8 : i8
    } : tensor<1x?x?x?xi8> to tensor<1x?x?x?xi8>
    %w4 = tensor.pad %w low[%zero, %zero, %zero, %zero] high[%zero, %zero, %one, %zero] {
    ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
      tensor.yield %c0_i8 : i8
    } : tensor<?x?x?x?xi8> to tensor<?x?x?x?xi8>
    %r = util.call @ireerv_conv_s8(%x4, %w4, %fill, %stride)
        : (tensor<1x?x?x?xi8>, tensor<?x?x?x?xi8>, i32, index) -> tensor<1x?x?x?xi32>
    util.return %r : tensor<1x?x?x?xi32>
  }

  // What the kernel takes as it is: int8, channels and filters multiples of 4 (its
  // words and its tile of 4 filters).
  transform.named_sequence @match_i8_conv_words(%op: !transform.any_op {transform.readonly})
      -> !transform.any_op {
    transform.match.operation_name %op ["linalg.conv_2d_nhwc_hwcf"] : !transform.any_op
    %in = transform.get_operand %op[0] : (!transform.any_op) -> !transform.any_value
    %init = transform.get_operand %op[2] : (!transform.any_op) -> !transform.any_value
    transform.iree.match.cast_compatible_type %init = tensor<1x?x?x?xi32> : !transform.any_value
    transform.iree.match.dim_is_multiple_of %in[3], 4 : !transform.any_value
    transform.iree.match.dim_is_multiple_of %init[3], 4 : !transform.any_value
    transform.yield %op : !transform.any_op
  }

  // A first layer of 3 channels, filters a multiple of 4 (its channels padded to 4).
  transform.named_sequence @match_i8_conv_rgb(%op: !transform.any_op {transform.readonly})
      -> !transform.any_op {
    transform.match.operation_name %op ["linalg.conv_2d_nhwc_hwcf"] : !transform.any_op
    %in = transform.get_operand %op[0] : (!transform.any_op) -> !transform.any_value
    %init = transform.get_operand %op[2] : (!transform.any_op) -> !transform.any_value
    transform.iree.match.cast_compatible_type %init = tensor<1x?x?x?xi32> : !transform.any_value
    transform.iree.match.dim_bounds %in[3], umin = 3, umax = 3 : !transform.any_value
    transform.iree.match.dim_is_multiple_of %init[3], 4 : !transform.any_value
    transform.yield %op : !transform.any_op
  }

  // The convolution of stride 1 (no dilation) from a fill: its input, weights and fill
  // value, and its sums.
  transform.named_sequence @fill_conv_s1(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_value, !transform.any_value) {
    %ins, %outs = transform.iree.match.cast_compatible_dag_from_root %op {
      ^bb0(%x: tensor<1x?x?x?xi8>, %w: tensor<?x?x?x?xi8>, %v: i32):
        %one = arith.constant 1 : index
        %two = arith.constant 2 : index
        %three = arith.constant 3 : index
        %oh = tensor.dim %x, %one : tensor<1x?x?x?xi8>
        %ow = tensor.dim %x, %two : tensor<1x?x?x?xi8>
        %f = tensor.dim %w, %three : tensor<?x?x?x?xi8>
        %empty = tensor.empty(%oh, %ow, %f) {"match.operation_name_only"} : tensor<1x?x?x?xi32>
        %sums = linalg.fill ins(%v : i32) outs(%empty : tensor<1x?x?x?xi32>) -> tensor<1x?x?x?xi32>
        %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>,
                                       strides = dense<1> : tensor<2xi64>}
            ins(%x, %w : tensor<1x?x?x?xi8>, tensor<?x?x?x?xi8>)
            outs(%sums : tensor<1x?x?x?xi32>) -> tensor<1x?x?x?xi32>
    } : (!transform.any_op) -> (!transform.any_value, !transform.any_value)
    transform.yield %ins, %outs : !transform.any_value, !transform.any_value
  }

  // The convolution of stride 2 (no dilation) from a fill: its input, weights and fill
  // value, and its sums.
  transform.named_sequence @fill_conv_s2(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_value, !transform.any_value) {
    %ins, %outs = transform.iree.match.cast_compatible_dag_from_root %op {
      ^bb0(%x: tensor<1x?x?x?xi8>, %w: tensor<?x?x?x?xi8>, %v: i32):
        %one = arith.constant 1 : index
        %two = arith.constant 2 : index
        %three = arith.constant 3 : index
        %oh = tensor.dim %x, %one : tensor<1x?x?x?xi8>
        %ow = tensor.dim %x, %two : tensor<1x?x?x?xi8>
        %f = tensor.dim %w, %three : tensor<?x?x?x?xi8>
        %empty = tensor.empty(%oh, %ow, %f) {"match.operation_name_only"} : tensor<1x?x?x?xi32>
        %sums = linalg.fill ins(%v : i32) outs(%empty : tensor<1x?x?x?xi32>) -> tensor<1x?x?x?xi32>
        %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>,
                                       strides = dense<2> : tensor<2xi64>}
            ins(%x, %w : tensor<1x?x?x?xi8>, tensor<?x?x?x?xi8>)
            outs(%sums : tensor<1x?x?x?xi32>) -> tensor<1x?x?x?xi32>
    } : (!transform.any_op) -> (!transform.any_value, !transform.any_value)
    transform.yield %ins, %outs : !transform.any_value, !transform.any_value
  }

  transform.named_sequence @match_i8_conv3x3_s1(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_value, !transform.any_value) {
    %shaped = transform.include @match_i8_conv_words failures(propagate) (%op)
        : (!transform.any_op) -> !transform.any_op
    %weights = transform.get_operand %op[1] : (!transform.any_op) -> !transform.any_value
    transform.iree.match.cast_compatible_type %weights = tensor<3x3x?x?xi8> : !transform.any_value
    %ins, %outs = transform.include @fill_conv_s1 failures(propagate) (%shaped)
        : (!transform.any_op) -> (!transform.any_value, !transform.any_value)
    transform.yield %ins, %outs : !transform.any_value, !transform.any_value
  }

  transform.named_sequence @match_i8_conv3x3_s2(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_value, !transform.any_value) {
    %shaped = transform.include @match_i8_conv_words failures(propagate) (%op)
        : (!transform.any_op) -> !transform.any_op
    %weights = transform.get_operand %op[1] : (!transform.any_op) -> !transform.any_value
    transform.iree.match.cast_compatible_type %weights = tensor<3x3x?x?xi8> : !transform.any_value
    %ins, %outs = transform.include @fill_conv_s2 failures(propagate) (%shaped)
        : (!transform.any_op) -> (!transform.any_value, !transform.any_value)
    transform.yield %ins, %outs : !transform.any_value, !transform.any_value
  }

  transform.named_sequence @match_i8_conv1x1_s2(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_value, !transform.any_value) {
    %shaped = transform.include @match_i8_conv_words failures(propagate) (%op)
        : (!transform.any_op) -> !transform.any_op
    %weights = transform.get_operand %op[1] : (!transform.any_op) -> !transform.any_value
    transform.iree.match.cast_compatible_type %weights = tensor<1x1x?x?xi8> : !transform.any_value
    %ins, %outs = transform.include @fill_conv_s2 failures(propagate) (%shaped)
        : (!transform.any_op) -> (!transform.any_value, !transform.any_value)
    transform.yield %ins, %outs : !transform.any_value, !transform.any_value
  }

  transform.named_sequence @match_i8_conv3x3_rgb_s1(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_value, !transform.any_value) {
    %shaped = transform.include @match_i8_conv_rgb failures(propagate) (%op)
        : (!transform.any_op) -> !transform.any_op
    %weights = transform.get_operand %op[1] : (!transform.any_op) -> !transform.any_value
    transform.iree.match.cast_compatible_type %weights = tensor<3x3x?x?xi8> : !transform.any_value
    %ins, %outs = transform.include @fill_conv_s1 failures(propagate) (%shaped)
        : (!transform.any_op) -> (!transform.any_value, !transform.any_value)
    transform.yield %ins, %outs : !transform.any_value, !transform.any_value
  }

  transform.named_sequence @match_i8_conv3x3_rgb_s2(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_value, !transform.any_value) {
    %shaped = transform.include @match_i8_conv_rgb failures(propagate) (%op)
        : (!transform.any_op) -> !transform.any_op
    %weights = transform.get_operand %op[1] : (!transform.any_op) -> !transform.any_value
    transform.iree.match.cast_compatible_type %weights = tensor<3x3x?x?xi8> : !transform.any_value
    %ins, %outs = transform.include @fill_conv_s2 failures(propagate) (%shaped)
        : (!transform.any_op) -> (!transform.any_value, !transform.any_value)
    transform.yield %ins, %outs : !transform.any_value, !transform.any_value
  }

  // The kernel's executable and the functions its wrappers call, in the module of `op`.
  transform.named_sequence @import_conv(%op: !transform.any_op {transform.readonly})
      -> !transform.any_op {
    %module = transform.util.get_nearest_symbol_table %op : (!transform.any_op) -> !transform.any_op
    %exe = transform.util.import_symbol @ireerv_conv into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    %conv = transform.util.import_symbol @ireerv_conv_s8 into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    %padded = transform.util.import_symbol @ireerv_conv_s8_padded into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    transform.yield %module : !transform.any_op
  }

  transform.named_sequence @call_conv_s8_s1(%ins: !transform.any_value {transform.readonly},
      %out: !transform.any_value {transform.readonly}) {
    %root = transform.get_defining_op %out : (!transform.any_value) -> !transform.any_op
    %module = transform.include @import_conv failures(propagate) (%root)
        : (!transform.any_op) -> !transform.any_op
    %func = transform.util.import_symbol @ireerv_conv_s8_s1 into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    transform.util.cast_and_call %func(%ins) -> %out after %root {
      transform.type_conversion.tensor.cast_shape_dynamic_dims
    } : (!transform.any_op, !transform.any_value, !transform.any_value, !transform.any_op)
        -> !transform.any_op
    transform.yield
  }

  transform.named_sequence @call_conv_s8_s2(%ins: !transform.any_value {transform.readonly},
      %out: !transform.any_value {transform.readonly}) {
    %root = transform.get_defining_op %out : (!transform.any_value) -> !transform.any_op
    %module = transform.include @import_conv failures(propagate) (%root)
        : (!transform.any_op) -> !transform.any_op
    %func = transform.util.import_symbol @ireerv_conv_s8_s2 into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    transform.util.cast_and_call %func(%ins) -> %out after %root {
      transform.type_conversion.tensor.cast_shape_dynamic_dims
    } : (!transform.any_op, !transform.any_value, !transform.any_value, !transform.any_op)
        -> !transform.any_op
    transform.yield
  }

  transform.named_sequence @call_conv_s8_s1_padded(%ins: !transform.any_value {transform.readonly},
      %out: !transform.any_value {transform.readonly}) {
    %root = transform.get_defining_op %out : (!transform.any_value) -> !transform.any_op
    %module = transform.include @import_conv failures(propagate) (%root)
        : (!transform.any_op) -> !transform.any_op
    %func = transform.util.import_symbol @ireerv_conv_s8_s1_padded into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    transform.util.cast_and_call %func(%ins) -> %out after %root {
      transform.type_conversion.tensor.cast_shape_dynamic_dims
    } : (!transform.any_op, !transform.any_value, !transform.any_value, !transform.any_op)
        -> !transform.any_op
    transform.yield
  }

  transform.named_sequence @call_conv_s8_s2_padded(%ins: !transform.any_value {transform.readonly},
      %out: !transform.any_value {transform.readonly}) {
    %root = transform.get_defining_op %out : (!transform.any_value) -> !transform.any_op
    %module = transform.include @import_conv failures(propagate) (%root)
        : (!transform.any_op) -> !transform.any_op
    %func = transform.util.import_symbol @ireerv_conv_s8_s2_padded into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    transform.util.cast_and_call %func(%ins) -> %out after %root {
      transform.type_conversion.tensor.cast_shape_dynamic_dims
    } : (!transform.any_op, !transform.any_value, !transform.any_value, !transform.any_op)
        -> !transform.any_op
    transform.yield
  }

  transform.named_sequence @match_i8_matmul(%op: !transform.any_op {transform.readonly})
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

  // The matmul img2col leaves of a pointwise layer, its unit batch folded away:
  // (rows, output channels, k).
  transform.named_sequence @match_i8_matmul_generic(%op: !transform.any_op {transform.readonly})
      -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c3 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c3 : !transform.param<i64>
      transform.match.structured.dim %s[0, 1] {parallel} : !transform.any_op
      transform.match.structured.dim %s[2] {reduction} : !transform.any_op
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

  // A fully connected layer once its img2col and unit dimensions are gone:
  // (output channels, k), int8 by int8, one row.  Data tiling takes it as a matmul
  // of one row and picks the 1x8x4 tile, which the kernel has too.
  transform.named_sequence @match_i8_row_generic(%op: !transform.any_op {transform.readonly})
      -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c2 = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c2 : !transform.param<i64>
      transform.match.structured.dim %s[0] {parallel} : !transform.any_op
      transform.match.structured.dim %s[1] {reduction} : !transform.any_op
      transform.match.structured.body %s {contraction = ["arith.muli", "arith.addi"]}
          : !transform.any_op
      %c8 = transform.param.constant 8 : i64 -> !transform.param<i64>
      %in = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.any_value
      %bits = transform.match.structured.elemental_bitwidth %in
          : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi eq %bits, %c8 : !transform.param<i64>
      %w = transform.match.structured.input %s[1] : (!transform.any_op) -> !transform.any_value
      %wbits = transform.match.structured.elemental_bitwidth %w
          : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi eq %wbits, %c8 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  // int8 fully connected layers, as 1x1 convolutions of one output (the TFLite
  // translator's form), int8 weights: through IREE's own int8 code ad's layers
  // took 6.3 cycles a MAC, with the kernel's 1x8 tile ad takes 798,269 cycles a
  // call instead of 1,683,374.  Layers with int16 weights (ad's 8-channel ones)
  // stay as they are: the kernel has int8 tiles only.
  transform.named_sequence @match_i8_fully_connected(%op: !transform.any_op {transform.readonly})
      -> !transform.any_op {
    transform.match.operation_name %op ["linalg.conv_2d_nhwc_hwcf"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %c8 = transform.param.constant 8 : i64 -> !transform.param<i64>
      %in = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.any_value
      %bits = transform.match.structured.elemental_bitwidth %in
          : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi eq %bits, %c8 : !transform.param<i64>
      %w = transform.match.structured.input %s[1] : (!transform.any_op) -> !transform.any_value
      %wbits = transform.match.structured.elemental_bitwidth %w
          : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi eq %wbits, %c8 : !transform.param<i64>
      %c1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      %oh = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %ow = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %kh = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      %kw = transform.match.structured.dim %s[5] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi eq %oh, %c1 : !transform.param<i64>
      transform.match.param.cmpi eq %ow, %c1 : !transform.param<i64>
      transform.match.param.cmpi eq %kh, %c1 : !transform.param<i64>
      transform.match.param.cmpi eq %kw, %c1 : !transform.param<i64>
      // Of at least 32 outputs: a classifier's last layer (kws 64 x 12, vww 256 x 2,
      // resnet8 64 x 10) costs more packed and unpacked than it saves (kws 6,000
      // cycles a call more).
      %f = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %c32 = transform.param.constant 32 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %f, %c32 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  // int8 convolutions of one row of at most two taps over 2 x 2 to 25 x 6 outputs:
  // (n, oh, ow, f, kh, kw, c).
  transform.named_sequence @match_i8_pointwise(%op: !transform.any_op {transform.readonly})
      -> !transform.any_op {
    transform.match.operation_name %op ["linalg.conv_2d_nhwc_hwcf"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %in = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.any_value
      %bits = transform.match.structured.elemental_bitwidth %in
          : (!transform.any_value) -> !transform.param<i64>
      %c8 = transform.param.constant 8 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %bits, %c8 : !transform.param<i64>
      // int8 weights too: the kernel has int8 tiles only (a layer the translator
      // keeps int16 weights for, formats/prescaled.py, stays as it is).
      %w = transform.match.structured.input %s[1] : (!transform.any_op) -> !transform.any_value
      %wbits = transform.match.structured.elemental_bitwidth %w
          : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi eq %wbits, %c8 : !transform.param<i64>
      %kh = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      %c1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %kh, %c1 : !transform.param<i64>
      // Rows of outputs to tile: the kernel's tile has 8.  A fully connected layer
      // (one output) is matched as such (@match_i8_fully_connected): matched here
      // its one row was padded to 8 (ad 1,683,284 -> 2,900,093 cycles a call).
      %oh = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %ow = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %c2 = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %oh, %c2 : !transform.param<i64>
      transform.match.param.cmpi ge %ow, %c2 : !transform.param<i64>
      // And few enough: the mmt4d's int32 sums are a buffer of their own (vww's
      // 12x12 and larger layers asked for 222,948 bytes, more than its heap had).
      %c25 = transform.param.constant 25 : i64 -> !transform.param<i64>
      %c6 = transform.param.constant 6 : i64 -> !transform.param<i64>
      transform.match.param.cmpi le %oh, %c25 : !transform.param<i64>
      transform.match.param.cmpi le %ow, %c6 : !transform.param<i64>
      %kw = transform.match.structured.dim %s[5] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %kw, %c2 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  // Wider pointwise layers, of 7 to 24 outputs a row and at most 64 output
  // channels (vww's 12 x 12 x 64 ones: the int32 sums of one are 36 KiB), in the
  // translator's channel-pair form only (1 x 2 taps, stride 2: each output row's
  // inputs follow the last's, so IREE's tiled copy reads them rightly), int8
  // weights (the kernel's): vww 15,080,425 -> 13,836,633 cycles a call.
  transform.named_sequence @match_i8_pointwise_wide(%op: !transform.any_op {transform.readonly})
      -> !transform.any_op {
    transform.match.operation_name %op ["linalg.conv_2d_nhwc_hwcf"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %c8 = transform.param.constant 8 : i64 -> !transform.param<i64>
      %in = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.any_value
      %bits = transform.match.structured.elemental_bitwidth %in
          : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi eq %bits, %c8 : !transform.param<i64>
      %w = transform.match.structured.input %s[1] : (!transform.any_op) -> !transform.any_value
      %wbits = transform.match.structured.elemental_bitwidth %w
          : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi eq %wbits, %c8 : !transform.param<i64>
      %c1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      %c2 = transform.param.constant 2 : i64 -> !transform.param<i64>
      %kh = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      %kw = transform.match.structured.dim %s[5] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi eq %kh, %c1 : !transform.param<i64>
      transform.match.param.cmpi eq %kw, %c2 : !transform.param<i64>
      %oh = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %ow = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %f = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %c7 = transform.param.constant 7 : i64 -> !transform.param<i64>
      %c24 = transform.param.constant 24 : i64 -> !transform.param<i64>
      %c64 = transform.param.constant 64 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %ow, %c7 : !transform.param<i64>
      transform.match.param.cmpi le %ow, %c24 : !transform.param<i64>
      transform.match.param.cmpi le %oh, %c24 : !transform.param<i64>
      transform.match.param.cmpi le %f, %c64 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  // int8 convolutions of at most two input channels over at most 25 x 6 outputs
  // (kws's first layer: 10 x 2 taps over channel pairs, 320,000 MACs): their
  // img2col is a gather of few bytes (k = 40, every tap), their matmul the
  // board's kernel's (kws 4,692,280 -> 4,162,001 cycles a later call).
  transform.named_sequence @match_i8_few_channels(%op: !transform.any_op {transform.readonly})
      -> !transform.any_op {
    transform.match.operation_name %op ["linalg.conv_2d_nhwc_hwcf"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %in = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.any_value
      %bits = transform.match.structured.elemental_bitwidth %in
          : (!transform.any_value) -> !transform.param<i64>
      %c8 = transform.param.constant 8 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %bits, %c8 : !transform.param<i64>
      // int8 weights too: the kernel has int8 tiles only (a layer the translator
      // keeps int16 weights for, formats/prescaled.py, stays as it is).
      %w = transform.match.structured.input %s[1] : (!transform.any_op) -> !transform.any_value
      %wbits = transform.match.structured.elemental_bitwidth %w
          : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi eq %wbits, %c8 : !transform.param<i64>
      %c = transform.match.structured.dim %s[6] : (!transform.any_op) -> !transform.param<i64>
      %c2 = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi le %c, %c2 : !transform.param<i64>
      // The sums' buffer, as for pointwise layers.
      %oh = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %ow = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %c25 = transform.param.constant 25 : i64 -> !transform.param<i64>
      %c6 = transform.param.constant 6 : i64 -> !transform.param<i64>
      transform.match.param.cmpi le %oh, %c25 : !transform.param<i64>
      transform.match.param.cmpi le %ow, %c6 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  // An img2col copy, its unit batch folded away: (rows, k), a plain copy from
  // [H, W, C].  Those of a window of taps (the few-channel convolutions above)
  // are miscompiled by IREE when their rows are tiled: its vectorizer copies 8
  // rows as if they lay one after another in the input (true of a pointwise
  // layer's rows, not of a window's), and a workgroup of 8 rows read the wrong
  // input rows (kws: 2 of 12 outputs off TFLite's by 121; a lone convolution
  // compiled for the host: 4,800 of 8,000 sums wrong).  So a window's copy is
  // one workgroup of scalar loops (CPUDefault, no tiling; kws's first layer's
  // takes 147,000 cycles).  A pointwise layer's copy keeps IREE's configuration
  // (or its model's tuning): as scalar loops kws's took 95,000 cycles more each.
  transform.named_sequence @match_window_copy(%op: !transform.any_op {transform.readonly})
      -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    %m = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c2 = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c2 : !transform.param<i64>
      transform.match.structured.dim %s[all] {parallel} : !transform.any_op
      transform.match.structured.body %s {passthrough} : !transform.any_op
      %n = transform.match.structured.num_inputs %s : (!transform.any_op) -> !transform.param<i64>
      %c1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %n, %c1 : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %m : !transform.any_op
  }

  // A pointwise layer's img2col copy (its input [H, W, C] of C a multiple of 4, as
  // no window copy above has): its rows follow one another, and IREE's own
  // configuration (or the model's tuning) copies it in words.
  transform.named_sequence @match_pointwise_copy(%op: !transform.any_op {transform.readonly})
      -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    %in = transform.get_operand %op[0] : (!transform.any_op) -> !transform.any_value
    transform.iree.match.cast_compatible_type %in = tensor<?x?x?xi8> : !transform.any_value
    transform.iree.match.dim_is_multiple_of %in[2], 4 : !transform.any_value
    transform.yield %op : !transform.any_op
  }

  transform.named_sequence @keep(%op: !transform.any_op {transform.readonly}) {
    transform.yield
  }

  transform.named_sequence @scalar_copy(%op: !transform.any_op {transform.readonly}) {
    %scalar = transform.param.constant #iree_codegen.compilation_info<
      lowering_config = #iree_cpu.lowering_config<distribution = [0, 0]>,
      translation_info = #iree_codegen.translation_info<pipeline = CPUDefault>>
        -> !transform.any_param
    transform.annotate %op "compilation_info" = %scalar : !transform.any_op, !transform.any_param
    transform.yield
  }

  transform.named_sequence @match_function(%op: !transform.any_op {transform.readonly})
      -> !transform.any_op {
    transform.match.operation_name %op ["util.func", "func.func"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }

  transform.named_sequence @__transform_main(%module: !transform.any_op) {
    %conv_funcs = transform.collect_matching @match_function in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %conv_funcs : !transform.any_op {
    ^bb0(%func: !transform.any_op):
      transform.foreach_match in %func
          @match_i8_conv3x3_s1 -> @call_conv_s8_s1,
          @match_i8_conv3x3_s2 -> @call_conv_s8_s2,
          @match_i8_conv1x1_s2 -> @call_conv_s8_s2,
          @match_i8_conv3x3_rgb_s1 -> @call_conv_s8_s1_padded,
          @match_i8_conv3x3_rgb_s2 -> @call_conv_s8_s2_padded
        : (!transform.any_op) -> !transform.any_op
    }
    // The calls inlined, so each dispatch sees its own shapes (and the weights'
    // transpose is folded at compile time).
    %inlined = transform.apply_registered_pass "inline" to %module
        : (!transform.any_op) -> !transform.any_op
    %convs = transform.collect_matching @match_i8_pointwise in %inlined
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %convs : !transform.any_op {
    ^bb0(%conv: !transform.any_op):
      %img2col, %result = transform.structured.convert_conv2d_to_img2col %conv
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    }
    %wides = transform.collect_matching @match_i8_pointwise_wide in %inlined
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %wides : !transform.any_op {
    ^bb0(%conv: !transform.any_op):
      %img2col, %result = transform.structured.convert_conv2d_to_img2col %conv
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    }
    %firsts = transform.collect_matching @match_i8_few_channels in %inlined
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %firsts : !transform.any_op {
    ^bb0(%conv: !transform.any_op):
      %img2col, %result = transform.structured.convert_conv2d_to_img2col %conv
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    }
    %fcs = transform.collect_matching @match_i8_fully_connected in %inlined
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %fcs : !transform.any_op {
    ^bb0(%conv: !transform.any_op):
      %img2col, %result = transform.structured.convert_conv2d_to_img2col %conv
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    }
    %funcs = transform.collect_matching @match_function in %inlined
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %funcs {
      transform.apply_patterns.linalg.fold_unit_extent_dims_via_reshapes
    } : !transform.any_op
    %named = transform.collect_matching @match_i8_matmul in %inlined
        : (!transform.any_op) -> !transform.any_op
    transform.annotate %named "iree.opt.data_tiling" : !transform.any_op
    %generic = transform.collect_matching @match_i8_matmul_generic in %inlined
        : (!transform.any_op) -> !transform.any_op
    transform.annotate %generic "iree.opt.data_tiling" : !transform.any_op
    %rows = transform.collect_matching @match_i8_row_generic in %inlined
        : (!transform.any_op) -> !transform.any_op
    transform.annotate %rows "iree.opt.data_tiling" : !transform.any_op
    transform.annotate %funcs "iree.opt.data_tiling" : !transform.any_op
    %bodies = transform.collect_matching @match_function in %inlined
        : (!transform.any_op) -> !transform.any_op
    transform.foreach_match in %bodies
        @match_pointwise_copy -> @keep,
        @match_window_copy -> @scalar_copy
      : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
