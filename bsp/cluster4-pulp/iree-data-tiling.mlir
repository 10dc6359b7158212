// Which ops iree-compile data-tiles on cluster4-pulp, and which convolutions it
// hands to the board's own kernel, read through
// --iree-preprocessing-transform-spec-filename (board.toml, [iree] preprocessing).
//
// In order (@__transform_main): a first layer of 3 channels and stride 1 goes to
// ireerv_conv_s8, whose int32 sums IREE requantises; fully connected layers are
// data-tiled; the int8 convolutions whose requantisation is the TFLite
// translator's (its mark ireerv.requant) go to ireerv_conv_q8, which requantises
// them itself and writes int8: 3x3 ones of stride 1 or 2, 1x1 ones of stride 2,
// pointwise layers, prescaled or not, and kws's first layer (2 taps of channel
// pairs: a word a window row); few-channel layers left are data-tiled.  Its
// dispatches are shared among the harts by output rows (harts/kernel_slices.py);
// against ireerv_conv_s8 with IREE's requantisation and the mmt4d kernel for
// pointwise layers, a later call took kws 3,983,216 -> 3,793,892 cycles, resnet8
// 8,621,404 -> 8,198,150 and vww 10,005,530 -> 9,589,034.  The prescaled 3x3
// depthwise convolutions of 8 rows or more, of 5 outputs or more, go to
// ireerv_dw_q8 (depthwise_q8.c), shared by groups of rows, and so do the 3x3 ones of
// the translator's other form (int8 weights [3][3][C][1], vww's of 6 and 3 rows: a
// later call 7,741,012 -> 7,590,796 cycles).  Then wider pointwise layers are
// data-tiled.
//
// A convolution the kernel takes becomes a dispatch of the executable below
// (@ireerv_conv): its entry point calls the kernel, declared `hal.import.static`
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
  // The board's kernels (conv_sdotp.c), one workgroup per output row, for int8
  // convolutions whose filters are a multiple of 4 and whose input channels are
  // too, or are 3 (a first layer: padded to 4 with zero weights for ireerv_conv_s8,
  // windows of 4 taps for ireerv_conv_q8, @ireerv_rgb_blocks), starting from a
  // fill (the bias is added later: the board's flag
  // --iree-global-opt-detach-elementwise-from-named-ops).  ireerv_conv_s8 writes
  // the int32 sums, ireerv_conv_q8 the requantised int8 outputs.  The weights go to
  // them in blocks of 4 filters, [F/4][KH][KW][C/4][4 filters][4 channels]: one
  // word of each filter after another (relaid at compile time).  Through IREE's own
  // code these convolutions took 2.7 cycles a MAC; data tiling them needs an
  // img2col copy the scratchpad cannot hold, and IREE v3.9.0 miscompiles it when
  // it tiles it (docs/boards.md).  An executable per kernel: of one executable of
  // several, IREE v3.9.0 links only the exports a model dispatches, but where it is the
  // model's only executable the dispatches keep the declared ordinals (a model whose
  // layers all went to the kernels stopped: "entry point ordinal out of bounds").
  stream.executable private @board_conv_s8 {
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
  stream.executable private @board_conv_q8 {
    stream.executable.export public @conv_q8 workgroups(%oh: index) -> (index, index, index) {
      %one = arith.constant 1 : index
      stream.return %oh, %one, %one : index, index, index
    }
    builtin.module {
      func.func private @ireerv_conv_q8(%in: memref<i8>, %in_offset: index,
          %w: memref<i8>, %w_offset: index, %t: memref<i32>, %t_offset: index,
          %out: memref<i8>, %out_offset: index, %iw: index, %c: index, %ow: index,
          %f: index, %kh: index, %kw: index, %sh: index, %sw: index, %fill: i32, %row: index)
          attributes {hal.import.static, llvm.bareptr = true}
      func.func @conv_q8(%b_in: !stream.binding, %b_w: !stream.binding,
          %b_t: !stream.binding, %b_out: !stream.binding, %ih: index, %iw: index, %c: index,
          %oh: index, %ow: index, %f: index, %kh: index, %kw: index, %sh: index, %sw: index,
          %fill: i32) {
        %zero = arith.constant 0 : index
        %columns = arith.constant 6 : index
        %row = stream.dispatch.workgroup.id[0] : index
        %in_pixels = arith.muli %ih, %iw : index
        %in_n = arith.muli %in_pixels, %c : index
        %window = arith.muli %kh, %kw : index
        %taps = arith.muli %window, %c : index
        %w_n = arith.muli %f, %taps : index
        %t_n = arith.muli %f, %columns : index
        %out_pixels = arith.muli %oh, %ow : index
        %out_n = arith.muli %out_pixels, %f : index
        %in = stream.binding.subspan %b_in[%zero] : !stream.binding -> memref<?xi8>{%in_n}
        %w = stream.binding.subspan %b_w[%zero] : !stream.binding -> memref<?xi8>{%w_n}
        %t = stream.binding.subspan %b_t[%zero] : !stream.binding -> memref<?xi32>{%t_n}
        %out = stream.binding.subspan %b_out[%zero] : !stream.binding -> memref<?xi8>{%out_n}
        %in_base, %in_offset, %in_size, %in_stride = iree_codegen.extract_strided_metadata %in
            : memref<?xi8> -> memref<i8>, index, index, index
        %w_base, %w_offset, %w_size, %w_stride = iree_codegen.extract_strided_metadata %w
            : memref<?xi8> -> memref<i8>, index, index, index
        %t_base, %t_offset, %t_size, %t_stride = iree_codegen.extract_strided_metadata %t
            : memref<?xi32> -> memref<i32>, index, index, index
        %o_base, %o_offset, %o_size, %o_stride = iree_codegen.extract_strided_metadata %out
            : memref<?xi8> -> memref<i8>, index, index, index
        func.call @ireerv_conv_q8(%in_base, %in_offset, %w_base, %w_offset, %t_base, %t_offset,
            %o_base, %o_offset, %iw, %c, %ow, %f, %kh, %kw, %sh, %sw, %fill, %row)
            : (memref<i8>, index, memref<i8>, index, memref<i32>, index, memref<i8>, index,
               index, index, index, index, index, index, index, index, i32, index) -> ()
        return
      }
    }
  }
  stream.executable private @board_dw_q8 {
    stream.executable.export public @dw_q8 workgroups(%groups: index) -> (index, index, index) {
      %one = arith.constant 1 : index
      stream.return %groups, %one, %one : index, index, index
    }
    builtin.module {
      func.func private @ireerv_dw_q8(%in: memref<i8>, %in_offset: index,
          %w: memref<i8>, %w_offset: index, %t: memref<i32>, %t_offset: index,
          %out: memref<i8>, %out_offset: index, %iw: index, %c: index, %ow: index,
          %kh: index, %kw: index, %sh: index, %sw: index, %rows: index, %span: index,
          %fill: i32, %w_n: index, %row: index)
          attributes {hal.import.static, llvm.bareptr = true}
      func.func @dw_q8(%b_in: !stream.binding, %b_w: !stream.binding,
          %b_t: !stream.binding, %b_out: !stream.binding, %ih: index, %iw: index, %c: index,
          %oh: index, %ow: index, %kh: index, %kw: index, %sh: index, %sw: index,
          %rows: index, %span: index, %fill: i32, %w_n: index) {
        %zero = arith.constant 0 : index
        %columns = arith.constant 8 : index
        %row = stream.dispatch.workgroup.id[0] : index
        %in_pixels = arith.muli %ih, %iw : index
        %in_n = arith.muli %in_pixels, %c : index
        %t_n = arith.muli %c, %columns : index
        %out_pixels = arith.muli %oh, %ow : index
        %out_n = arith.muli %out_pixels, %c : index
        %in = stream.binding.subspan %b_in[%zero] : !stream.binding -> memref<?xi8>{%in_n}
        %w = stream.binding.subspan %b_w[%zero] : !stream.binding -> memref<?xi8>{%w_n}
        %t = stream.binding.subspan %b_t[%zero] : !stream.binding -> memref<?xi32>{%t_n}
        %out = stream.binding.subspan %b_out[%zero] : !stream.binding -> memref<?xi8>{%out_n}
        %in_base, %in_offset, %in_size, %in_stride = iree_codegen.extract_strided_metadata %in
            : memref<?xi8> -> memref<i8>, index, index, index
        %w_base, %w_offset, %w_size, %w_stride = iree_codegen.extract_strided_metadata %w
            : memref<?xi8> -> memref<i8>, index, index, index
        %t_base, %t_offset, %t_size, %t_stride = iree_codegen.extract_strided_metadata %t
            : memref<?xi32> -> memref<i32>, index, index, index
        %o_base, %o_offset, %o_size, %o_stride = iree_codegen.extract_strided_metadata %out
            : memref<?xi8> -> memref<i8>, index, index, index
        func.call @ireerv_dw_q8(%in_base, %in_offset, %w_base, %w_offset, %t_base, %t_offset,
            %o_base, %o_offset, %iw, %c, %ow, %kh, %kw, %sh, %sw, %rows, %span, %fill, %w_n,
            %row)
            : (memref<i8>, index, memref<i8>, index, memref<i32>, index, memref<i8>, index,
               index, index, index, index, index, index, index, index, index, i32, index,
               index) -> ()
        return
      }
    }
  }
  stream.executable private @board_place_q8 {
    stream.executable.export public @place_q8 workgroups(%pixels: index) -> (index, index, index) {
      %one = arith.constant 1 : index
      stream.return %one, %one, %one : index, index, index
    }
    builtin.module {
      func.func private @ireerv_place_q8(%part: memref<i8>, %part_offset: index,
          %pos: memref<i32>, %pos_offset: index, %num: memref<i8>, %num_offset: index,
          %out: memref<i8>, %out_offset: index, %pixels: index, %cp: index, %c: index)
          attributes {hal.import.static, llvm.bareptr = true}
      func.func @place_q8(%b_part: !stream.binding, %b_pos: !stream.binding,
          %b_num: !stream.binding, %b_out: !stream.binding, %pixels: index, %cp: index,
          %c: index) {
        %zero = arith.constant 0 : index
        %part_n = arith.muli %pixels, %cp : index
        %out_n = arith.muli %pixels, %c : index
        %part = stream.binding.subspan %b_part[%zero] : !stream.binding -> memref<?xi8>{%part_n}
        %pos = stream.binding.subspan %b_pos[%zero] : !stream.binding -> memref<?xi32>{%c}
        %num = stream.binding.subspan %b_num[%zero] : !stream.binding -> memref<?xi8>{%c}
        %out = stream.binding.subspan %b_out[%zero] : !stream.binding -> memref<?xi8>{%out_n}
        %p_base, %p_offset, %p_size, %p_stride = iree_codegen.extract_strided_metadata %part
            : memref<?xi8> -> memref<i8>, index, index, index
        %q_base, %q_offset, %q_size, %q_stride = iree_codegen.extract_strided_metadata %pos
            : memref<?xi32> -> memref<i32>, index, index, index
        %n_base, %n_offset, %n_size, %n_stride = iree_codegen.extract_strided_metadata %num
            : memref<?xi8> -> memref<i8>, index, index, index
        %o_base, %o_offset, %o_size, %o_stride = iree_codegen.extract_strided_metadata %out
            : memref<?xi8> -> memref<i8>, index, index, index
        func.call @ireerv_place_q8(%p_base, %p_offset, %q_base, %q_offset, %n_base, %n_offset,
            %o_base, %o_offset, %pixels, %cp, %c)
            : (memref<i8>, index, memref<i32>, index, memref<i8>, index, memref<i8>, index,
               index, index, index) -> ()
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
    %r = flow.dispatch @board_conv_s8::@conv_s8[%oh](%x, %blocked, %ih, %iw, %c, %oh, %ow, %f,
        %kh, %kw, %stride, %fill)
        : (tensor<1x?x?x?xi8>{%ih, %iw, %c}, tensor<?x?x?x?x4x4xi8>{%f4, %kh, %kw, %c4},
           index, index, index, index, index, index, index, index, index, i32)
        -> tensor<1x?x?x?xi32>{%oh, %ow, %f}
    util.return %r : tensor<1x?x?x?xi32>
  }

  util.func private @ireerv_conv_s8_s1_padded(%x: tensor<1x?x?x?xi8>, %w: tensor<?x?x?x?xi8>,
      %fill: i32) -> tensor<1x?x?x?xi32> attributes {inlining_policy = #util.inline.always} {
    %stride = arith.constant 1 : index
    %r = util.call @ireerv_conv_s8_padded(%x, %w, %fill, %stride)
        : (tensor<1x?x?x?xi8>, tensor<?x?x?x?xi8>, i32, index) -> tensor<1x?x?x?xi32>
    util.return %r : tensor<1x?x?x?xi32>
  }

  // A layer of 3 channels: padded to 4 with zero weights (the rows of its windows would
  // start mid-word).  The weights' padding and relayout are computed at compile time
  // (an increase within the board's --iree-opt-const-expr-max-size-increase-threshold);
  // at 0 they took resnet8 5,237 cycles a call.
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

  // The kernel's int8 outputs [1][OH][OW][F] (the shape of `shape`): the convolution
  // of x [1][IH][IW][C] (padded already) and w [KH][KW][C][F], strides sh down and sw
  // across, from `fill` plus the bias, requantised with the translator's columns (its
  // mark ireerv.requant, formats/requant_generic.py OPERANDS), each [F].  Channels
  // that are no multiple of 4 are padded to one with zero weights (the rows of the
  // windows would start mid-word; a static pad of nothing folds away), but for 3x3
  // windows of 3 channels (@ireerv_rgb_blocks).
  util.func private @ireerv_conv_q8(%x: tensor<1x?x?x?xi8>, %w: tensor<?x?x?x?xi8>,
      %fill: i32, %shape: tensor<1x?x?x?xi8>, %sh: index, %sw: index, %bias: tensor<?xi32>,
      %biases: tensor<?xi32>, %lefts: tensor<?xi32>, %multipliers: tensor<?xi32>,
      %signs: tensor<?xi32>, %nudges: tensor<?xi32>, %shifts: tensor<?xi32>,
      %after: tensor<?xi32>, %low: tensor<?xi32>, %high: tensor<?xi32>, %pres: tensor<?xi32>)
      -> tensor<1x?x?x?xi8> attributes {inlining_policy = #util.inline.always} {
    %zero = arith.constant 0 : index
    %one = arith.constant 1 : index
    %two = arith.constant 2 : index
    %three = arith.constant 3 : index
    %four = arith.constant 4 : index
    %six = arith.constant 6 : index
    %c0_i8 = arith.constant 0 : i8
    %c = tensor.dim %x, %three : tensor<1x?x?x?xi8>
    %kh = tensor.dim %w, %zero : tensor<?x?x?x?xi8>
    %kw = tensor.dim %w, %one : tensor<?x?x?x?xi8>
    %f = tensor.dim %w, %three : tensor<?x?x?x?xi8>
    %c_is3 = arith.cmpi eq, %c, %three : index
    %kh_is3 = arith.cmpi eq, %kh, %three : index
    %kw_is3 = arith.cmpi eq, %kw, %three : index
    %square = arith.andi %kh_is3, %kw_is3 : i1
    %rgb = arith.andi %c_is3, %square : i1
    %xk, %blocked, %taps = scf.if %rgb
        -> (tensor<1x?x?x?xi8>, tensor<?x?x?x?x4x4xi8>, index) {
      %b = util.call @ireerv_rgb_blocks(%w) : (tensor<?x?x?x?xi8>) -> tensor<?x?x?x?x4x4xi8>
      scf.yield %x, %b, %four : tensor<1x?x?x?xi8>, tensor<?x?x?x?x4x4xi8>, index
    } else {
      %more = affine.apply affine_map<()[s0] -> ((4 - s0 mod 4) mod 4)>()[%c]
      %x4 = tensor.pad %x low[%zero, %zero, %zero, %zero] high[%zero, %zero, %zero, %more] {
      ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
        tensor.yield %c0_i8 : i8
      } : tensor<1x?x?x?xi8> to tensor<1x?x?x?xi8>
      %w4 = tensor.pad %w low[%zero, %zero, %zero, %zero] high[%zero, %zero, %more, %zero] {
      ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
        tensor.yield %c0_i8 : i8
      } : tensor<?x?x?x?xi8> to tensor<?x?x?x?xi8>
      %c4 = affine.apply affine_map<()[s0] -> ((s0 + 3) floordiv 4)>()[%c]
      %f4 = arith.divui %f, %four : index
      %split = tensor.expand_shape %w4 [[0], [1], [2, 3], [4, 5]]
          output_shape [%kh, %kw, %c4, 4, %f4, 4]
          : tensor<?x?x?x?xi8> into tensor<?x?x?x4x?x4xi8>
      %empty = tensor.empty(%f4, %kh, %kw, %c4) : tensor<?x?x?x?x4x4xi8>
      %t = linalg.transpose ins(%split : tensor<?x?x?x4x?x4xi8>)
          outs(%empty : tensor<?x?x?x?x4x4xi8>) permutation = [4, 0, 1, 2, 5, 3]
      scf.yield %x4, %t, %kw : tensor<1x?x?x?xi8>, tensor<?x?x?x?x4x4xi8>, index
    }
    %ih = tensor.dim %xk, %one : tensor<1x?x?x?xi8>
    %iw = tensor.dim %xk, %two : tensor<1x?x?x?xi8>
    %cp = tensor.dim %xk, %three : tensor<1x?x?x?xi8>
    %b0 = tensor.dim %blocked, %zero : tensor<?x?x?x?x4x4xi8>
    %b1 = tensor.dim %blocked, %one : tensor<?x?x?x?x4x4xi8>
    %b2 = tensor.dim %blocked, %two : tensor<?x?x?x?x4x4xi8>
    %b3 = tensor.dim %blocked, %three : tensor<?x?x?x?x4x4xi8>
    %oh = tensor.dim %shape, %one : tensor<1x?x?x?xi8>
    %ow = tensor.dim %shape, %two : tensor<1x?x?x?xi8>
    %t_n = arith.muli %f, %six : index
    %table = util.call @ireerv_q8_table(%bias, %biases, %lefts, %multipliers, %signs, %nudges,
        %shifts, %after, %low, %high, %pres)
        : (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>,
           tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>,
           tensor<?xi32>) -> tensor<?xi32>
    %r = flow.dispatch @board_conv_q8::@conv_q8[%oh](%xk, %blocked, %table, %ih, %iw, %cp, %oh,
        %ow, %f, %kh, %taps, %sh, %sw, %fill)
        : (tensor<1x?x?x?xi8>{%ih, %iw, %cp}, tensor<?x?x?x?x4x4xi8>{%b0, %b1, %b2, %b3},
           tensor<?xi32>{%t_n}, index, index, index, index, index, index, index, index,
           index, index, i32)
        -> tensor<1x?x?x?xi8>{%oh, %ow, %f}
    util.return %r : tensor<1x?x?x?xi8>
  }

  // The weights w [3][3][3][F] of a layer of 3 channels (an image's) as the kernel's
  // blocks for windows of 3 rows of 4 taps, [F/4][3][3][1][4][4]: a window's row is 12
  // bytes of the input, 4 pixels of 3 channels, the 4th pixel's weights 0, so the input
  // keeps its 3 channels.  Padded to 4, a copy of vww's input took 121,608 cycles a
  // call on hart 0 alone (IREE's byte loop, with a fill of its own); the kernel's loads
  // of rows that start mid-word cost the split accesses instead, and the last window of
  // a row reads 3 bytes past it (into the next row, or past the input: weighed 0).
  util.func private @ireerv_rgb_blocks(%w: tensor<?x?x?x?xi8>) -> tensor<?x?x?x?x4x4xi8>
      attributes {inlining_policy = #util.inline.always} {
    %zero = arith.constant 0 : index
    %one = arith.constant 1 : index
    %three = arith.constant 3 : index
    %four = arith.constant 4 : index
    %c0_i8 = arith.constant 0 : i8
    %w4 = tensor.pad %w low[%zero, %zero, %zero, %zero] high[%zero, %one, %zero, %zero] {
    ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
      tensor.yield %c0_i8 : i8
    } : tensor<?x?x?x?xi8> to tensor<?x?x?x?xi8>
    %kh = tensor.dim %w4, %zero : tensor<?x?x?x?xi8>
    %f = tensor.dim %w4, %three : tensor<?x?x?x?xi8>
    %f4 = arith.divui %f, %four : index
    %rows = tensor.collapse_shape %w4 [[0], [1, 2], [3]]
        : tensor<?x?x?x?xi8> into tensor<?x?x?xi8>
    %split = tensor.expand_shape %rows [[0], [1, 2], [3, 4]]
        output_shape [%kh, %three, 4, %f4, 4]
        : tensor<?x?x?xi8> into tensor<?x?x4x?x4xi8>
    %empty = tensor.empty(%f4, %kh, %three) : tensor<?x?x?x4x4xi8>
    %t = linalg.transpose ins(%split : tensor<?x?x4x?x4xi8>)
        outs(%empty : tensor<?x?x?x4x4xi8>) permutation = [3, 0, 1, 4, 2]
    %blocks = tensor.expand_shape %t [[0], [1], [2, 3], [4], [5]]
        output_shape [%f4, %kh, %three, %one, 4, 4]
        : tensor<?x?x?x4x4xi8> into tensor<?x?x?x?x4x4xi8>
    util.return %blocks : tensor<?x?x?x?x4x4xi8>
  }

  // A layer's output [P][C] from its computed channels part [P][CP] (formats/
  // pruned_outputs.py, the op marked ireerv.place): channel c is part's channel
  // positions[c], or numbers[c] where that is -1.  One workgroup, place_q8.c's.
  util.func private @ireerv_place(%part: tensor<?x?xi8>, %positions: tensor<?xi32>,
      %numbers: tensor<?xi8>) -> tensor<?x?xi8>
      attributes {inlining_policy = #util.inline.always} {
    %zero = arith.constant 0 : index
    %one = arith.constant 1 : index
    %pixels = tensor.dim %part, %zero : tensor<?x?xi8>
    %cp = tensor.dim %part, %one : tensor<?x?xi8>
    %c = tensor.dim %positions, %zero : tensor<?xi32>
    %r = flow.dispatch @board_place_q8::@place_q8[%pixels](%part, %positions, %numbers,
        %pixels, %cp, %c)
        : (tensor<?x?xi8>{%pixels, %cp}, tensor<?xi32>{%c}, tensor<?xi8>{%c}, index, index,
           index) -> tensor<?x?xi8>{%pixels, %c}
    util.return %r : tensor<?x?xi8>
  }

  // The convolution kernel's table [F][6] (requant_q8.h's Q_ columns): the bias, the
  // prescaled layers' biases, the multiplier, the nudge, SHIFT and MODE.  SHIFT's bytes:
  // the shift (cv.addNr reads a shift's low 5 bits), the prescaled layers' left shift
  // of the sums (PLAIN layers have none: the requantisation's left shift there, which
  // the kernel reads without MODE's byte and its mask) and the kind of the layer's
  // columns (@ireerv_q8_kinds).  MODE's: the clamp's low and high, the constant after
  // the shift, and the requantisation's left shift (bits 24-28) with the sign term (bit
  // 31).  From the translator's columns (formats/requant_generic.py OPERANDS), each [F].
  // 12 words a filter before (one each), a constant staged at each call where the
  // weight cache has no room for it.
  util.func private @ireerv_q8_table(%bias: tensor<?xi32>, %biases: tensor<?xi32>,
      %lefts: tensor<?xi32>, %multipliers: tensor<?xi32>, %signs: tensor<?xi32>,
      %nudges: tensor<?xi32>, %shifts: tensor<?xi32>, %after: tensor<?xi32>,
      %low: tensor<?xi32>, %high: tensor<?xi32>, %pres: tensor<?xi32>) -> tensor<?xi32>
      attributes {inlining_policy = #util.inline.always} {
    %zero = arith.constant 0 : index
    %six = arith.constant 6 : index
    %f = tensor.dim %bias, %zero : tensor<?xi32>
    %t_n = arith.muli %f, %six : index
    %kinds = util.call @ireerv_q8_kinds(%biases, %signs, %after, %low, %high, %pres)
        : (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>,
           tensor<?xi32>) -> tensor<?xi32>
    %mode = util.call @ireerv_q8_mode(%lefts, %signs, %after, %low, %high)
        : (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>)
        -> tensor<?xi32>
    %sk_empty = tensor.empty(%f) : tensor<?xi32>
    %shift_word = linalg.generic {
        indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>,
                         affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>,
                         affine_map<(d0) -> (d0)>],
        iterator_types = ["parallel"]}
        ins(%shifts, %kinds, %lefts, %pres : tensor<?xi32>, tensor<?xi32>, tensor<?xi32>,
            tensor<?xi32>)
        outs(%sk_empty : tensor<?xi32>) {
    ^bb0(%e: i32, %k: i32, %l: i32, %p: i32, %o: i32):
      %c0_i32 = arith.constant 0 : i32
      %c2_i32 = arith.constant 2 : i32
      %c8_i32 = arith.constant 8 : i32
      %c16_i32 = arith.constant 16 : i32
      %plain_bit = arith.andi %k, %c2_i32 : i32
      %plain = arith.cmpi ne, %plain_bit, %c0_i32 : i32
      %pre_word = arith.select %plain, %l, %p : i32
      %pre_at = arith.shli %pre_word, %c8_i32 : i32
      %k_at = arith.shli %k, %c16_i32 : i32
      %ep = arith.ori %e, %pre_at : i32
      %epk = arith.ori %ep, %k_at : i32
      linalg.yield %epk : i32
    } -> tensor<?xi32>
    %table0 = tensor.empty(%t_n) : tensor<?xi32>
    %at0 = arith.constant 0 : index
    %table1 = tensor.insert_slice %bias into %table0[%at0] [%f] [6]
        : tensor<?xi32> into tensor<?xi32>
    %at1 = arith.constant 1 : index
    %table2 = tensor.insert_slice %biases into %table1[%at1] [%f] [6]
        : tensor<?xi32> into tensor<?xi32>
    %at2 = arith.constant 2 : index
    %table3 = tensor.insert_slice %multipliers into %table2[%at2] [%f] [6]
        : tensor<?xi32> into tensor<?xi32>
    %at3 = arith.constant 3 : index
    %table4 = tensor.insert_slice %nudges into %table3[%at3] [%f] [6]
        : tensor<?xi32> into tensor<?xi32>
    %at4 = arith.constant 4 : index
    %table5 = tensor.insert_slice %shift_word into %table4[%at4] [%f] [6]
        : tensor<?xi32> into tensor<?xi32>
    %at5 = arith.constant 5 : index
    %table = tensor.insert_slice %mode into %table5[%at5] [%f] [6]
        : tensor<?xi32> into tensor<?xi32>
    util.return %table : tensor<?xi32>
  }

  // MODE, the two kernels' packed word (requant_q8.h), [F]: the clamp's low and high
  // and the constant after the shift as bytes 0-2, the requantisation's left shift
  // (bits 24-28) and the sign term (bit 31).
  util.func private @ireerv_q8_mode(%lefts: tensor<?xi32>, %signs: tensor<?xi32>,
      %after: tensor<?xi32>, %low: tensor<?xi32>, %high: tensor<?xi32>) -> tensor<?xi32>
      attributes {inlining_policy = #util.inline.always} {
    %zero = arith.constant 0 : index
    %f = tensor.dim %lefts, %zero : tensor<?xi32>
    %mode_empty = tensor.empty(%f) : tensor<?xi32>
    %mode = linalg.generic {
        indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>,
                         affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>,
                         affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
        iterator_types = ["parallel"]}
        ins(%lefts, %signs, %after, %low, %high : tensor<?xi32>, tensor<?xi32>,
            tensor<?xi32>, tensor<?xi32>, tensor<?xi32>)
        outs(%mode_empty : tensor<?xi32>) {
    ^bb0(%l: i32, %s: i32, %a: i32, %lo: i32, %hi: i32, %o: i32):
      %c0_i32 = arith.constant 0 : i32
      %c8_i32 = arith.constant 8 : i32
      %c16_i32 = arith.constant 16 : i32
      %c24_i32 = arith.constant 24 : i32
      %c255_i32 = arith.constant 255 : i32
      %signed_bit = arith.constant -2147483648 : i32
      %signed = arith.cmpi ne, %s, %c0_i32 : i32
      %lo8 = arith.andi %lo, %c255_i32 : i32
      %hi8 = arith.andi %hi, %c255_i32 : i32
      %a8 = arith.andi %a, %c255_i32 : i32
      %hi_at = arith.shli %hi8, %c8_i32 : i32
      %a_at = arith.shli %a8, %c16_i32 : i32
      %l_at = arith.shli %l, %c24_i32 : i32
      %sign_at = arith.select %signed, %signed_bit, %c0_i32 : i32
      %m1 = arith.ori %lo8, %hi_at : i32
      %m2 = arith.ori %m1, %a_at : i32
      %m3 = arith.ori %m2, %l_at : i32
      %m4 = arith.ori %m3, %sign_at : i32
      linalg.yield %m4 : i32
    } -> tensor<?xi32>
    util.return %mode : tensor<?xi32>
  }

  // The kind of a layer's columns (a byte of requant_q8.h's Q_SHIFT), [F] of the same value:
  // CLIPPED (1) when no filter adds a constant after the shift and each clamps to int8,
  // PLAIN (2) when none is prescaled or has the sign term.
  util.func private @ireerv_q8_kinds(%biases: tensor<?xi32>, %signs: tensor<?xi32>,
      %after: tensor<?xi32>, %low: tensor<?xi32>, %high: tensor<?xi32>,
      %pres: tensor<?xi32>) -> tensor<?xi32>
      attributes {inlining_policy = #util.inline.always} {
    %zero = arith.constant 0 : index
    %c0_i32 = arith.constant 0 : i32
    %f = tensor.dim %biases, %zero : tensor<?xi32>
    %empty = tensor.empty() : tensor<i32>
    %none = linalg.fill ins(%c0_i32 : i32) outs(%empty : tensor<i32>) -> tensor<i32>
    %other = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>,
                                              affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>,
                                              affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>,
                                              affine_map<(d0) -> ()>],
                             iterator_types = ["reduction"]}
        ins(%biases, %signs, %after, %low, %high, %pres
            : tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>,
              tensor<?xi32>)
        outs(%none : tensor<i32>) {
    ^bb0(%b: i32, %s: i32, %a: i32, %l: i32, %h: i32, %p: i32, %o: i32):
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %c127 = arith.constant 127 : i32
      %c128 = arith.constant 128 : i32
      %l0 = arith.addi %l, %c128 : i32
      %h0 = arith.subi %h, %c127 : i32
      %al = arith.ori %a, %l0 : i32
      %clamp = arith.ori %al, %h0 : i32
      %bs = arith.ori %b, %s : i32
      %scaled = arith.ori %bs, %p : i32
      %unclipped = arith.cmpi ne, %clamp, %c0 : i32
      %unplain = arith.cmpi ne, %scaled, %c0 : i32
      %u1 = arith.select %unclipped, %c1, %c0 : i32
      %u2 = arith.select %unplain, %c2, %c0 : i32
      %u = arith.ori %u1, %u2 : i32
      %r = arith.ori %o, %u : i32
      linalg.yield %r : i32
    } -> tensor<i32>
    %spread = tensor.empty(%f) : tensor<?xi32>
    %kinds = linalg.generic {indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>],
                             iterator_types = ["parallel"]}
        ins(%other : tensor<i32>) outs(%spread : tensor<?xi32>) {
    ^bb0(%n: i32, %o: i32):
      %c3 = arith.constant 3 : i32
      %k = arith.xori %n, %c3 : i32
      linalg.yield %k : i32
    } -> tensor<?xi32>
    util.return %kinds : tensor<?xi32>
  }

  util.func private @ireerv_conv_q8_s1(%x: tensor<1x?x?x?xi8>, %w: tensor<?x?x?x?xi8>, %fill: i32,
      %shape: tensor<1x?x?x?xi8>, %bias: tensor<?xi32>, %biases: tensor<?xi32>,
      %lefts: tensor<?xi32>, %multipliers: tensor<?xi32>, %signs: tensor<?xi32>,
      %nudges: tensor<?xi32>, %shifts: tensor<?xi32>, %after: tensor<?xi32>,
      %low: tensor<?xi32>, %high: tensor<?xi32>) -> tensor<1x?x?x?xi8>
      attributes {inlining_policy = #util.inline.always} {
    %sh = arith.constant 1 : index
    %sw = arith.constant 1 : index
    %zeros = util.call @ireerv_zeros_like(%bias) : (tensor<?xi32>) -> tensor<?xi32>
    %r = util.call @ireerv_conv_q8(%x, %w, %fill, %shape, %sh, %sw, %bias, %biases, %lefts, %multipliers, %signs, %nudges, %shifts, %after, %low, %high, %zeros)
        : (tensor<1x?x?x?xi8>, tensor<?x?x?x?xi8>, i32, tensor<1x?x?x?xi8>, index, index,
           tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) -> tensor<1x?x?x?xi8>
    util.return %r : tensor<1x?x?x?xi8>
  }

  util.func private @ireerv_conv_q8_s2(%x: tensor<1x?x?x?xi8>, %w: tensor<?x?x?x?xi8>, %fill: i32,
      %shape: tensor<1x?x?x?xi8>, %bias: tensor<?xi32>, %biases: tensor<?xi32>,
      %lefts: tensor<?xi32>, %multipliers: tensor<?xi32>, %signs: tensor<?xi32>,
      %nudges: tensor<?xi32>, %shifts: tensor<?xi32>, %after: tensor<?xi32>,
      %low: tensor<?xi32>, %high: tensor<?xi32>) -> tensor<1x?x?x?xi8>
      attributes {inlining_policy = #util.inline.always} {
    %sh = arith.constant 2 : index
    %sw = arith.constant 2 : index
    %zeros = util.call @ireerv_zeros_like(%bias) : (tensor<?xi32>) -> tensor<?xi32>
    %r = util.call @ireerv_conv_q8(%x, %w, %fill, %shape, %sh, %sw, %bias, %biases, %lefts, %multipliers, %signs, %nudges, %shifts, %after, %low, %high, %zeros)
        : (tensor<1x?x?x?xi8>, tensor<?x?x?x?xi8>, i32, tensor<1x?x?x?xi8>, index, index,
           tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) -> tensor<1x?x?x?xi8>
    util.return %r : tensor<1x?x?x?xi8>
  }

  // The kernel's int8 outputs (as @ireerv_conv_q8) of a convolution of stride 2 down
  // and 1 across whose windows are 2 taps of 2 channels, w [KH][2][2][F]: a window's
  // row is the 4 bytes from its first tap on, one word (the kernel's c = 2, kw = 2:
  // windows 2 bytes apart), so the weights go as [KH][1][4][F], rows of one word, with
  // no padding (@ireerv_conv_q8 would pad the channels to 4: twice the products).
  util.func private @ireerv_conv_q8_word_rows(%x: tensor<1x?x?x?xi8>, %w: tensor<?x?x?x?xi8>,
      %fill: i32, %shape: tensor<1x?x?x?xi8>, %bias: tensor<?xi32>, %biases: tensor<?xi32>,
      %lefts: tensor<?xi32>, %multipliers: tensor<?xi32>, %signs: tensor<?xi32>,
      %nudges: tensor<?xi32>, %shifts: tensor<?xi32>, %after: tensor<?xi32>,
      %low: tensor<?xi32>, %high: tensor<?xi32>) -> tensor<1x?x?x?xi8>
      attributes {inlining_policy = #util.inline.always} {
    %zero = arith.constant 0 : index
    %one = arith.constant 1 : index
    %two = arith.constant 2 : index
    %three = arith.constant 3 : index
    %four = arith.constant 4 : index
    %six = arith.constant 6 : index
    %ih = tensor.dim %x, %one : tensor<1x?x?x?xi8>
    %iw = tensor.dim %x, %two : tensor<1x?x?x?xi8>
    %c = tensor.dim %x, %three : tensor<1x?x?x?xi8>
    %kh = tensor.dim %w, %zero : tensor<?x?x?x?xi8>
    %kw = tensor.dim %w, %one : tensor<?x?x?x?xi8>
    %f = tensor.dim %w, %three : tensor<?x?x?x?xi8>
    %oh = tensor.dim %shape, %one : tensor<1x?x?x?xi8>
    %ow = tensor.dim %shape, %two : tensor<1x?x?x?xi8>
    %f4 = arith.divui %f, %four : index
    %pairs = tensor.cast %w : tensor<?x?x?x?xi8> to tensor<?x2x2x?xi8>
    %rows = tensor.collapse_shape %pairs [[0], [1, 2], [3]]
        : tensor<?x2x2x?xi8> into tensor<?x4x?xi8>
    %split = tensor.expand_shape %rows [[0, 1, 2], [3], [4, 5]]
        output_shape [%kh, 1, 1, 4, %f4, 4]
        : tensor<?x4x?xi8> into tensor<?x1x1x4x?x4xi8>
    %empty = tensor.empty(%f4, %kh) : tensor<?x?x1x1x4x4xi8>
    %blocked = linalg.transpose ins(%split : tensor<?x1x1x4x?x4xi8>)
        outs(%empty : tensor<?x?x1x1x4x4xi8>) permutation = [4, 0, 1, 2, 5, 3]
    %t_n = arith.muli %f, %six : index
    %zeros = util.call @ireerv_zeros_like(%bias) : (tensor<?xi32>) -> tensor<?xi32>
    %table = util.call @ireerv_q8_table(%bias, %biases, %lefts, %multipliers, %signs, %nudges,
        %shifts, %after, %low, %high, %zeros)
        : (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>,
           tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>,
           tensor<?xi32>) -> tensor<?xi32>
    %sh = arith.constant 2 : index
    %sw = arith.constant 1 : index
    %r = flow.dispatch @board_conv_q8::@conv_q8[%oh](%x, %blocked, %table, %ih, %iw, %c, %oh,
        %ow, %f, %kh, %kw, %sh, %sw, %fill)
        : (tensor<1x?x?x?xi8>{%ih, %iw, %c}, tensor<?x?x1x1x4x4xi8>{%f4, %kh},
           tensor<?xi32>{%t_n}, index, index, index, index, index, index, index, index,
           index, index, i32)
        -> tensor<1x?x?x?xi8>{%oh, %ow, %f}
    util.return %r : tensor<1x?x?x?xi8>
  }

  // A pointwise layer over channel pairs.  8 rows or more of fewer than 8 outputs
  // (kws's 25 of 5) go with their rows in groups (@ireerv_group_of: kws's in 5 rows of
  // 25), the same bytes (each output's window is its own 2 input pixels): a row of 5
  // is a 4x4 tile and a 1x4 one, 0.56 words fetched a MAC against 0.375 (kws, a later
  // call: 3,021,618 cycles in rows of 5, 2,981,042 in one row, 2,908,255 in 5 of 25).
  // vww's 6 rows of 6 and 3 of 3 stay rows: grouped, they crash iree-compile v3.9.0
  // (in arith.constant's folder).
  util.func private @ireerv_conv_q8_pairs(%x: tensor<1x?x?x?xi8>, %w: tensor<?x?x?x?xi8>, %fill: i32,
      %shape: tensor<1x?x?x?xi8>, %bias: tensor<?xi32>, %biases: tensor<?xi32>,
      %lefts: tensor<?xi32>, %multipliers: tensor<?xi32>, %signs: tensor<?xi32>,
      %nudges: tensor<?xi32>, %shifts: tensor<?xi32>, %after: tensor<?xi32>,
      %low: tensor<?xi32>, %high: tensor<?xi32>) -> tensor<1x?x?x?xi8>
      attributes {inlining_policy = #util.inline.always} {
    %sh = arith.constant 1 : index
    %sw = arith.constant 2 : index
    %zeros = util.call @ireerv_zeros_like(%bias) : (tensor<?xi32>) -> tensor<?xi32>
    %one = arith.constant 1 : index
    %two = arith.constant 2 : index
    %three = arith.constant 3 : index
    %eight = arith.constant 8 : index
    %oh = tensor.dim %shape, %one : tensor<1x?x?x?xi8>
    %ow = tensor.dim %shape, %two : tensor<1x?x?x?xi8>
    %short = arith.cmpi ult, %ow, %eight : index
    %many = arith.cmpi uge, %oh, %eight : index
    %one_row = arith.andi %short, %many : i1
    %r = scf.if %one_row -> (tensor<1x?x?x?xi8>) {
      %g = util.call @ireerv_group_of(%oh) : (index) -> index
      %line = util.call @ireerv_row_groups(%x, %g) : (tensor<1x?x?x?xi8>, index) -> tensor<1x?x?x?xi8>
      %outs = util.call @ireerv_row_groups(%shape, %g) : (tensor<1x?x?x?xi8>, index) -> tensor<1x?x?x?xi8>
      %q = util.call @ireerv_conv_q8(%line, %w, %fill, %outs, %sh, %sw, %bias, %biases, %lefts, %multipliers, %signs, %nudges, %shifts, %after, %low, %high, %zeros)
          : (tensor<1x?x?x?xi8>, tensor<?x?x?x?xi8>, i32, tensor<1x?x?x?xi8>, index, index,
             tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) -> tensor<1x?x?x?xi8>
      %f = tensor.dim %q, %three : tensor<1x?x?x?xi8>
      %flat = tensor.collapse_shape %q [[0, 1, 2], [3]] : tensor<1x?x?x?xi8> into tensor<?x?xi8>
      %back = tensor.expand_shape %flat [[0, 1, 2], [3]] output_shape [1, %oh, %ow, %f]
          : tensor<?x?xi8> into tensor<1x?x?x?xi8>
      scf.yield %back : tensor<1x?x?x?xi8>
    } else {
      %q = util.call @ireerv_conv_q8(%x, %w, %fill, %shape, %sh, %sw, %bias, %biases, %lefts, %multipliers, %signs, %nudges, %shifts, %after, %low, %high, %zeros)
          : (tensor<1x?x?x?xi8>, tensor<?x?x?x?xi8>, i32, tensor<1x?x?x?xi8>, index, index,
             tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) -> tensor<1x?x?x?xi8>
      scf.yield %q : tensor<1x?x?x?xi8>
    }
    util.return %r : tensor<1x?x?x?xi8>
  }

  // x [1][H][W][C] with its rows in groups of g, [1][H / g][g * W][C] (the same bytes).
  util.func private @ireerv_row_groups(%x: tensor<1x?x?x?xi8>, %g: index) -> tensor<1x?x?x?xi8>
      attributes {inlining_policy = #util.inline.always} {
    %one = arith.constant 1 : index
    %two = arith.constant 2 : index
    %three = arith.constant 3 : index
    %h = tensor.dim %x, %one : tensor<1x?x?x?xi8>
    %w = tensor.dim %x, %two : tensor<1x?x?x?xi8>
    %c = tensor.dim %x, %three : tensor<1x?x?x?xi8>
    %rows = arith.divui %h, %g : index
    %long = arith.muli %w, %g : index
    %flat = tensor.collapse_shape %x [[0], [1, 2], [3]] : tensor<1x?x?x?xi8> into tensor<1x?x?xi8>
    %r = tensor.expand_shape %flat [[0], [1, 2], [3]] output_shape [1, %rows, %long, %c]
        : tensor<1x?x?xi8> into tensor<1x?x?x?xi8>
    util.return %r : tensor<1x?x?x?xi8>
  }

  // The first of 4, 5, 3 and 2 that divides n, else 1.
  util.func private @ireerv_group_of(%n: index) -> index
      attributes {inlining_policy = #util.inline.always} {
    %zero = arith.constant 0 : index
    %one = arith.constant 1 : index
    %two = arith.constant 2 : index
    %three = arith.constant 3 : index
    %four = arith.constant 4 : index
    %five = arith.constant 5 : index
    %m2 = arith.remui %n, %two : index
    %d2 = arith.cmpi eq, %m2, %zero : index
    %g2 = arith.select %d2, %two, %one : index
    %m3 = arith.remui %n, %three : index
    %d3 = arith.cmpi eq, %m3, %zero : index
    %g3 = arith.select %d3, %three, %g2 : index
    %m5 = arith.remui %n, %five : index
    %d5 = arith.cmpi eq, %m5, %zero : index
    %g5 = arith.select %d5, %five, %g3 : index
    %m4 = arith.remui %n, %four : index
    %d4 = arith.cmpi eq, %m4, %zero : index
    %g4 = arith.select %d4, %four, %g5 : index
    util.return %g4 : index
  }

  // Zeros of the shape of `like`.
  util.func private @ireerv_zeros_like(%like: tensor<?xi32>) -> tensor<?xi32>
      attributes {inlining_policy = #util.inline.always} {
    %zero = arith.constant 0 : index
    %c0_i32 = arith.constant 0 : i32
    %n = tensor.dim %like, %zero : tensor<?xi32>
    %empty = tensor.empty(%n) : tensor<?xi32>
    %zeros = linalg.fill ins(%c0_i32 : i32) outs(%empty : tensor<?xi32>) -> tensor<?xi32>
    util.return %zeros : tensor<?xi32>
  }

  // A prescaled layer (formats/prescaled.py): its int16 weights are filter c's int8
  // ones times 2^(2 + d_c), and requant_generic.scaled_plan's nudge of filter c is an
  // odd number times 2^d_c: the kernel takes the int8 weights (the shift undone at
  // compile time) and shifts each filter's sums left by 2 + d_c, its trailing zeros
  // plus 2 (tests/test_prescaled.py holds that property).
  util.func private @ireerv_conv_q16(%x: tensor<1x?x?x?xi8>, %w: tensor<?x?x?x?xi16>,
      %fill: i32, %shape: tensor<1x?x?x?xi8>, %sh: index, %sw: index, %biases: tensor<?xi32>,
      %lefts: tensor<?xi32>, %multipliers: tensor<?xi32>, %signs: tensor<?xi32>,
      %nudges: tensor<?xi32>, %shifts: tensor<?xi32>, %after: tensor<?xi32>,
      %low: tensor<?xi32>, %high: tensor<?xi32>) -> tensor<1x?x?x?xi8>
      attributes {inlining_policy = #util.inline.always} {
    %zero = arith.constant 0 : index
    %one = arith.constant 1 : index
    %two = arith.constant 2 : index
    %three = arith.constant 3 : index
    %c2_i32 = arith.constant 2 : i32
    %f = tensor.dim %nudges, %zero : tensor<?xi32>
    %pres_empty = tensor.empty(%f) : tensor<?xi32>
    %pres = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                            iterator_types = ["parallel"]}
        ins(%nudges : tensor<?xi32>) outs(%pres_empty : tensor<?xi32>) {
    ^bb0(%n: i32, %o: i32):
      %d = math.cttz %n : i32
      %p = arith.addi %d, %c2_i32 : i32
      linalg.yield %p : i32
    } -> tensor<?xi32>
    %kh = tensor.dim %w, %zero : tensor<?x?x?x?xi16>
    %kw = tensor.dim %w, %one : tensor<?x?x?x?xi16>
    %c = tensor.dim %w, %two : tensor<?x?x?x?xi16>
    %w8_empty = tensor.empty(%kh, %kw, %c, %f) : tensor<?x?x?x?xi8>
    %w8 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>,
                                           affine_map<(d0, d1, d2, d3) -> (d3)>,
                                           affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                          iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%w, %pres : tensor<?x?x?x?xi16>, tensor<?xi32>) outs(%w8_empty : tensor<?x?x?x?xi8>) {
    ^bb0(%v: i16, %p: i32, %o: i8):
      %p16 = arith.trunci %p : i32 to i16
      %u = arith.shrsi %v, %p16 : i16
      %b = arith.trunci %u : i16 to i8
      linalg.yield %b : i8
    } -> tensor<?x?x?x?xi8>
    %bias = util.call @ireerv_zeros_like(%nudges) : (tensor<?xi32>) -> tensor<?xi32>
    %r = util.call @ireerv_conv_q8(%x, %w8, %fill, %shape, %sh, %sw, %bias, %biases, %lefts, %multipliers, %signs, %nudges, %shifts, %after, %low, %high, %pres)
        : (tensor<1x?x?x?xi8>, tensor<?x?x?x?xi8>, i32, tensor<1x?x?x?xi8>, index, index,
           tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) -> tensor<1x?x?x?xi8>
    util.return %r : tensor<1x?x?x?xi8>
  }

  util.func private @ireerv_conv_q16_s1(%x: tensor<1x?x?x?xi8>, %w: tensor<?x?x?x?xi16>, %fill: i32,
      %shape: tensor<1x?x?x?xi8>, %biases: tensor<?xi32>, %lefts: tensor<?xi32>,
      %multipliers: tensor<?xi32>, %signs: tensor<?xi32>, %nudges: tensor<?xi32>,
      %shifts: tensor<?xi32>, %after: tensor<?xi32>, %low: tensor<?xi32>,
      %high: tensor<?xi32>) -> tensor<1x?x?x?xi8>
      attributes {inlining_policy = #util.inline.always} {
    %sh = arith.constant 1 : index
    %sw = arith.constant 1 : index
    %r = util.call @ireerv_conv_q16(%x, %w, %fill, %shape, %sh, %sw, %biases, %lefts, %multipliers, %signs, %nudges, %shifts, %after, %low, %high)
        : (tensor<1x?x?x?xi8>, tensor<?x?x?x?xi16>, i32, tensor<1x?x?x?xi8>, index, index,
           tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) -> tensor<1x?x?x?xi8>
    util.return %r : tensor<1x?x?x?xi8>
  }

  util.func private @ireerv_conv_q16_pairs(%x: tensor<1x?x?x?xi8>, %w: tensor<?x?x?x?xi16>, %fill: i32,
      %shape: tensor<1x?x?x?xi8>, %biases: tensor<?xi32>, %lefts: tensor<?xi32>,
      %multipliers: tensor<?xi32>, %signs: tensor<?xi32>, %nudges: tensor<?xi32>,
      %shifts: tensor<?xi32>, %after: tensor<?xi32>, %low: tensor<?xi32>,
      %high: tensor<?xi32>) -> tensor<1x?x?x?xi8>
      attributes {inlining_policy = #util.inline.always} {
    %sh = arith.constant 1 : index
    %sw = arith.constant 2 : index
    %r = util.call @ireerv_conv_q16(%x, %w, %fill, %shape, %sh, %sw, %biases, %lefts, %multipliers, %signs, %nudges, %shifts, %after, %low, %high)
        : (tensor<1x?x?x?xi8>, tensor<?x?x?x?xi16>, i32, tensor<1x?x?x?xi8>, index, index,
           tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) -> tensor<1x?x?x?xi8>
    util.return %r : tensor<1x?x?x?xi8>
  }

  // The depthwise kernel's int8 outputs [1][OH][OW][C] (the shape of `shape`) of a
  // prescaled layer (formats/prescaled.py, as @ireerv_conv_q16): x [1][IH][IW][C]
  // (padded already), w [KH][KW][C] int16 (channel c's int8 weights times
  // 2^(2 + d_c): the kernel takes the int8 ones and shifts the sums), strides sh
  // down and sw across, requantised with the translator's columns, each [C].
  util.func private @ireerv_dw_q16(%x: tensor<1x?x?x?xi8>, %w: tensor<?x?x?xi16>,
      %fill: i32, %shape: tensor<1x?x?x?xi8>, %sh: index, %sw: index, %biases: tensor<?xi32>,
      %lefts: tensor<?xi32>, %multipliers: tensor<?xi32>, %signs: tensor<?xi32>,
      %nudges: tensor<?xi32>, %shifts: tensor<?xi32>, %after: tensor<?xi32>,
      %low: tensor<?xi32>, %high: tensor<?xi32>) -> tensor<1x?x?x?xi8>
      attributes {inlining_policy = #util.inline.always} {
    %zero = arith.constant 0 : index
    %one = arith.constant 1 : index
    %c2_i32 = arith.constant 2 : i32
    %c = tensor.dim %nudges, %zero : tensor<?xi32>
    %pres_empty = tensor.empty(%c) : tensor<?xi32>
    %pres = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                            iterator_types = ["parallel"]}
        ins(%nudges : tensor<?xi32>) outs(%pres_empty : tensor<?xi32>) {
    ^bb0(%n: i32, %o: i32):
      %d = math.cttz %n : i32
      %p = arith.addi %d, %c2_i32 : i32
      linalg.yield %p : i32
    } -> tensor<?xi32>
    %kh = tensor.dim %w, %zero : tensor<?x?x?xi16>
    %kw = tensor.dim %w, %one : tensor<?x?x?xi16>
    %w8_empty = tensor.empty(%kh, %kw, %c) : tensor<?x?x?xi8>
    %w8 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>,
                                           affine_map<(d0, d1, d2) -> (d2)>,
                                           affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
                          iterator_types = ["parallel", "parallel", "parallel"]}
        ins(%w, %pres : tensor<?x?x?xi16>, tensor<?xi32>) outs(%w8_empty : tensor<?x?x?xi8>) {
    ^bb0(%v: i16, %p: i32, %o: i8):
      %p16 = arith.trunci %p : i32 to i16
      %u = arith.shrsi %v, %p16 : i16
      %b = arith.trunci %u : i16 to i8
      linalg.yield %b : i8
    } -> tensor<?x?x?xi8>
    %bias = util.call @ireerv_zeros_like(%nudges) : (tensor<?xi32>) -> tensor<?xi32>
    %r = util.call @ireerv_dw_call(%x, %w8, %fill, %shape, %sh, %sw, %bias, %biases, %lefts, %multipliers, %signs, %nudges, %shifts, %after, %low, %high, %pres)
        : (tensor<1x?x?x?xi8>, tensor<?x?x?xi8>, i32, tensor<1x?x?x?xi8>, index, index,
           tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) -> tensor<1x?x?x?xi8>
    util.return %r : tensor<1x?x?x?xi8>
  }

  // The depthwise kernel's call: x [1][IH][IW][C] (padded already), w8 [KH][KW][C]
  // int8, strides sh down and sw across, the convolution's bias, the translator's
  // columns and each channel's left shift of the sums `pres` (0 but for a prescaled
  // layer), each [C].
  util.func private @ireerv_dw_call(%x: tensor<1x?x?x?xi8>, %w8: tensor<?x?x?xi8>,
      %fill: i32, %shape: tensor<1x?x?x?xi8>, %sh: index, %sw: index, %bias: tensor<?xi32>,
      %biases: tensor<?xi32>, %lefts: tensor<?xi32>, %multipliers: tensor<?xi32>,
      %signs: tensor<?xi32>, %nudges: tensor<?xi32>, %shifts: tensor<?xi32>,
      %after: tensor<?xi32>, %low: tensor<?xi32>, %high: tensor<?xi32>,
      %pres: tensor<?xi32>) -> tensor<1x?x?x?xi8>
      attributes {inlining_policy = #util.inline.always} {
    %zero = arith.constant 0 : index
    %one = arith.constant 1 : index
    %two = arith.constant 2 : index
    %eight_columns = arith.constant 8 : index
    %c = tensor.dim %nudges, %zero : tensor<?xi32>
    %kh = tensor.dim %w8, %zero : tensor<?x?x?xi8>
    %kw = tensor.dim %w8, %one : tensor<?x?x?xi8>
    %table = util.call @ireerv_dw_table(%bias, %biases, %lefts, %multipliers, %signs,
        %nudges, %shifts, %after, %low, %high, %pres, %w8, %fill)
        : (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>,
           tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>,
           tensor<?xi32>, tensor<?x?x?xi8>, i32) -> tensor<?xi32>
    %t_n = arith.muli %c, %eight_columns : index
    %ih = tensor.dim %x, %one : tensor<1x?x?x?xi8>
    %iw = tensor.dim %x, %two : tensor<1x?x?x?xi8>
    %oh = tensor.dim %shape, %one : tensor<1x?x?x?xi8>
    %ow = tensor.dim %shape, %two : tensor<1x?x?x?xi8>
    // The rows go in groups (@ireerv_group_of: kws's 25 in 5, vww's 48, 24 and 12 in
    // 4), a workgroup each: the kernel sets a channel's registers once for its rows
    // (kws, a later call: 2,839,149 cycles in rows, 2,763,237 so; vww 8,015,978 and
    // 8,007,429).  Fewer than 8 rows go in one workgroup, one hart's: vww's 6 rows of
    // 128 channels in 6 workgroups took 8,082,395 cycles (a later call; harts 1-3 copy
    // each workgroup's table and input over the shared path), in one 7,590,796.  `span`
    // is the input rows a workgroup reads.
    %eight = arith.constant 8 : index
    %many = arith.cmpi uge, %oh, %eight : index
    %g = util.call @ireerv_group_of(%oh) : (index) -> index
    %rows = arith.select %many, %g, %oh : index
    %groups = arith.divui %oh, %rows : index
    %more = arith.subi %rows, %one : index
    %reach = arith.muli %more, %sh : index
    %span = arith.addi %reach, %kh : index
    // The weights: kh x kw x c bytes where the kernel reads them; a word where the
    // windows are 3x3 (the table holds their filters' rows: vww's 10,584 bytes crossed
    // the shared path or took the weight cache's room for nothing).
    %three = arith.constant 3 : index
    %kh3 = arith.cmpi eq, %kh, %three : index
    %kw3 = arith.cmpi eq, %kw, %three : index
    %in_table = arith.andi %kh3, %kw3 : i1
    %weights = scf.if %in_table -> (tensor<?xi8>) {
      %word = arith.constant dense<0> : tensor<4xi8>
      %any = tensor.cast %word : tensor<4xi8> to tensor<?xi8>
      scf.yield %any : tensor<?xi8>
    } else {
      %flat = tensor.collapse_shape %w8 [[0, 1, 2]] : tensor<?x?x?xi8> into tensor<?xi8>
      scf.yield %flat : tensor<?xi8>
    }
    %w_n = tensor.dim %weights, %zero : tensor<?xi8>
    %r = flow.dispatch @board_dw_q8::@dw_q8[%groups](%x, %weights, %table, %ih, %iw, %c, %oh,
        %ow, %kh, %kw, %sh, %sw, %rows, %span, %fill, %w_n)
        : (tensor<1x?x?x?xi8>{%ih, %iw, %c}, tensor<?xi8>{%w_n},
           tensor<?xi32>{%t_n}, index, index, index, index, index, index, index, index,
           index, index, index, i32, index)
        -> tensor<1x?x?x?xi8>{%oh, %ow, %c}
    util.return %r : tensor<1x?x?x?xi8>
  }

  // The depthwise kernel's table [C][8] (depthwise_q8.c's DW_COLUMNS), computed at
  // compile time: the rows of the 3x3 filter w [3][3][C] as words, bytes w[r][2],
  // w[r][1], w[r][0], 0; the multiplier, the nudge, the shift with the sums' left shift
  // from bit 8 on (cv.addNr reads a shift's low 5 bits; a word of its own before, 9 a
  // channel), the constant added to the sums, ((fill + bias) << pre) + biases (both with the
  // requantisation's left shift too, but for the sign term's channels); and MODE: low,
  // high and after as bytes 0-2, the left shift (bits 24-28), the sign term (bit 31).
  // Before, the requantisation's 12 columns and the rows, 15 words a channel: vww
  // 7,590,796 cycles a later call, so 7,434,034, kws 2,482,832 and 2,447,894 (the
  // table is a constant, staged at each call where the weight cache has no room).
  util.func private @ireerv_dw_table(%bias: tensor<?xi32>, %biases: tensor<?xi32>,
      %lefts: tensor<?xi32>, %multipliers: tensor<?xi32>, %signs: tensor<?xi32>,
      %nudges: tensor<?xi32>, %shifts: tensor<?xi32>, %after: tensor<?xi32>,
      %low: tensor<?xi32>, %high: tensor<?xi32>, %pres: tensor<?xi32>,
      %w: tensor<?x?x?xi8>, %fill: i32) -> tensor<?xi32>
      attributes {inlining_policy = #util.inline.always} {
    %two = arith.constant 2 : index
    %c = tensor.dim %w, %two : tensor<?x?x?xi8>
    %words_empty = tensor.empty(%c) : tensor<?x3xi32>
    %words = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, 0, d0)>,
                                              affine_map<(d0, d1) -> (d1, 1, d0)>,
                                              affine_map<(d0, d1) -> (d1, 2, d0)>,
                                              affine_map<(d0, d1) -> (d0, d1)>],
                             iterator_types = ["parallel", "parallel"]}
        ins(%w, %w, %w : tensor<?x?x?xi8>, tensor<?x?x?xi8>, tensor<?x?x?xi8>)
        outs(%words_empty : tensor<?x3xi32>) {
    ^bb0(%first: i8, %middle: i8, %last: i8, %o: i32):
      %c8_i32 = arith.constant 8 : i32
      %c16_i32 = arith.constant 16 : i32
      %a = arith.extui %first : i8 to i32
      %b = arith.extui %middle : i8 to i32
      %d = arith.extui %last : i8 to i32
      %top = arith.shli %a, %c16_i32 : i32
      %mid = arith.shli %b, %c8_i32 : i32
      %upper = arith.ori %top, %mid : i32
      %word = arith.ori %upper, %d : i32
      linalg.yield %word : i32
    } -> tensor<?x3xi32>
    %pre_empty = tensor.empty(%c) : tensor<?xi32>
    %base_empty = tensor.empty(%c) : tensor<?xi32>
    %mode = util.call @ireerv_q8_mode(%lefts, %signs, %after, %low, %high)
        : (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>)
        -> tensor<?xi32>
    %pre, %base = linalg.generic {
        indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>,
                         affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>,
                         affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>,
                         affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
        iterator_types = ["parallel"]}
        ins(%bias, %biases, %lefts, %signs, %pres, %shifts
            : tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>,
              tensor<?xi32>)
        outs(%pre_empty, %base_empty : tensor<?xi32>, tensor<?xi32>) {
    ^bb0(%b: i32, %bs: i32, %l: i32, %s: i32, %p: i32, %e: i32, %o1: i32, %o2: i32):
      %c0_i32 = arith.constant 0 : i32
      %c8_i32 = arith.constant 8 : i32
      %fb = arith.addi %fill, %b : i32
      %shifted = arith.shli %fb, %p : i32
      %biased = arith.addi %shifted, %bs : i32
      %signed = arith.cmpi ne, %s, %c0_i32 : i32
      %pl = arith.addi %p, %l : i32
      %pre_all = arith.select %signed, %p, %pl : i32
      %pre_at = arith.shli %pre_all, %c8_i32 : i32
      %shift_pre = arith.ori %e, %pre_at : i32
      %bl = arith.shli %biased, %l : i32
      %base_all = arith.select %signed, %biased, %bl : i32
      linalg.yield %shift_pre, %base_all : i32, i32
    } -> (tensor<?xi32>, tensor<?xi32>)
    %empty = tensor.empty(%c) : tensor<?x8xi32>
    %with_words = tensor.insert_slice %words into %empty[0, 0] [%c, 3] [1, 1]
        : tensor<?x3xi32> into tensor<?x8xi32>
    %flat = tensor.collapse_shape %with_words [[0, 1]] : tensor<?x8xi32> into tensor<?xi32>
    %at3 = arith.constant 3 : index
    %t3 = tensor.insert_slice %multipliers into %flat[%at3] [%c] [8]
        : tensor<?xi32> into tensor<?xi32>
    %at4 = arith.constant 4 : index
    %t4 = tensor.insert_slice %nudges into %t3[%at4] [%c] [8]
        : tensor<?xi32> into tensor<?xi32>
    %at5 = arith.constant 5 : index
    %t5 = tensor.insert_slice %pre into %t4[%at5] [%c] [8]
        : tensor<?xi32> into tensor<?xi32>
    %at6 = arith.constant 6 : index
    %t6 = tensor.insert_slice %base into %t5[%at6] [%c] [8]
        : tensor<?xi32> into tensor<?xi32>
    %at7 = arith.constant 7 : index
    %table = tensor.insert_slice %mode into %t6[%at7] [%c] [8]
        : tensor<?xi32> into tensor<?xi32>
    util.return %table : tensor<?xi32>
  }

  util.func private @ireerv_dw_q16_s1(%x: tensor<1x?x?x?xi8>, %w: tensor<?x?x?xi16>, %fill: i32,
      %shape: tensor<1x?x?x?xi8>, %biases: tensor<?xi32>, %lefts: tensor<?xi32>,
      %multipliers: tensor<?xi32>, %signs: tensor<?xi32>, %nudges: tensor<?xi32>,
      %shifts: tensor<?xi32>, %after: tensor<?xi32>, %low: tensor<?xi32>,
      %high: tensor<?xi32>) -> tensor<1x?x?x?xi8>
      attributes {inlining_policy = #util.inline.always} {
    %s = arith.constant 1 : index
    %r = util.call @ireerv_dw_q16(%x, %w, %fill, %shape, %s, %s, %biases, %lefts, %multipliers, %signs, %nudges, %shifts, %after, %low, %high)
        : (tensor<1x?x?x?xi8>, tensor<?x?x?xi16>, i32, tensor<1x?x?x?xi8>, index, index,
           tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) -> tensor<1x?x?x?xi8>
    util.return %r : tensor<1x?x?x?xi8>
  }

  util.func private @ireerv_dw_q16_s2(%x: tensor<1x?x?x?xi8>, %w: tensor<?x?x?xi16>, %fill: i32,
      %shape: tensor<1x?x?x?xi8>, %biases: tensor<?xi32>, %lefts: tensor<?xi32>,
      %multipliers: tensor<?xi32>, %signs: tensor<?xi32>, %nudges: tensor<?xi32>,
      %shifts: tensor<?xi32>, %after: tensor<?xi32>, %low: tensor<?xi32>,
      %high: tensor<?xi32>) -> tensor<1x?x?x?xi8>
      attributes {inlining_policy = #util.inline.always} {
    %s = arith.constant 2 : index
    %r = util.call @ireerv_dw_q16(%x, %w, %fill, %shape, %s, %s, %biases, %lefts, %multipliers, %signs, %nudges, %shifts, %after, %low, %high)
        : (tensor<1x?x?x?xi8>, tensor<?x?x?xi16>, i32, tensor<1x?x?x?xi8>, index, index,
           tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) -> tensor<1x?x?x?xi8>
    util.return %r : tensor<1x?x?x?xi8>
  }

  // The translator's other depthwise form (int8 weights [KH][KW][C][1], the bias added
  // to the sums before the requantisation, which has the sign term or not): the
  // depthwise kernel's int8 outputs [1][OH][OW][C] as @ireerv_dw_q16's.
  util.func private @ireerv_dw_q8(%x: tensor<1x?x?x?xi8>, %w: tensor<?x?x?x1xi8>,
      %fill: i32, %shape: tensor<1x?x?x?xi8>, %sh: index, %sw: index, %bias: tensor<?xi32>,
      %biases: tensor<?xi32>, %lefts: tensor<?xi32>, %multipliers: tensor<?xi32>,
      %signs: tensor<?xi32>, %nudges: tensor<?xi32>, %shifts: tensor<?xi32>,
      %after: tensor<?xi32>, %low: tensor<?xi32>, %high: tensor<?xi32>) -> tensor<1x?x?x?xi8>
      attributes {inlining_policy = #util.inline.always} {
    %w8 = tensor.collapse_shape %w [[0], [1], [2, 3]] : tensor<?x?x?x1xi8> into tensor<?x?x?xi8>
    %pres = util.call @ireerv_zeros_like(%bias) : (tensor<?xi32>) -> tensor<?xi32>
    %r = util.call @ireerv_dw_call(%x, %w8, %fill, %shape, %sh, %sw, %bias, %biases, %lefts, %multipliers, %signs, %nudges, %shifts, %after, %low, %high, %pres)
        : (tensor<1x?x?x?xi8>, tensor<?x?x?xi8>, i32, tensor<1x?x?x?xi8>, index, index,
           tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) -> tensor<1x?x?x?xi8>
    util.return %r : tensor<1x?x?x?xi8>
  }

  util.func private @ireerv_dw_q8_s1(%x: tensor<1x?x?x?xi8>, %w: tensor<?x?x?x1xi8>,
      %fill: i32, %shape: tensor<1x?x?x?xi8>, %bias: tensor<?xi32>, %biases: tensor<?xi32>,
      %lefts: tensor<?xi32>, %multipliers: tensor<?xi32>, %signs: tensor<?xi32>,
      %nudges: tensor<?xi32>, %shifts: tensor<?xi32>, %after: tensor<?xi32>,
      %low: tensor<?xi32>, %high: tensor<?xi32>) -> tensor<1x?x?x?xi8>
      attributes {inlining_policy = #util.inline.always} {
    %s = arith.constant 1 : index
    %r = util.call @ireerv_dw_q8(%x, %w, %fill, %shape, %s, %s, %bias, %biases, %lefts, %multipliers, %signs, %nudges, %shifts, %after, %low, %high)
        : (tensor<1x?x?x?xi8>, tensor<?x?x?x1xi8>, i32, tensor<1x?x?x?xi8>, index, index,
           tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) -> tensor<1x?x?x?xi8>
    util.return %r : tensor<1x?x?x?xi8>
  }

  util.func private @ireerv_dw_q8_s2(%x: tensor<1x?x?x?xi8>, %w: tensor<?x?x?x1xi8>,
      %fill: i32, %shape: tensor<1x?x?x?xi8>, %bias: tensor<?xi32>, %biases: tensor<?xi32>,
      %lefts: tensor<?xi32>, %multipliers: tensor<?xi32>, %signs: tensor<?xi32>,
      %nudges: tensor<?xi32>, %shifts: tensor<?xi32>, %after: tensor<?xi32>,
      %low: tensor<?xi32>, %high: tensor<?xi32>) -> tensor<1x?x?x?xi8>
      attributes {inlining_policy = #util.inline.always} {
    %s = arith.constant 2 : index
    %r = util.call @ireerv_dw_q8(%x, %w, %fill, %shape, %s, %s, %bias, %biases, %lefts, %multipliers, %signs, %nudges, %shifts, %after, %low, %high)
        : (tensor<1x?x?x?xi8>, tensor<?x?x?x1xi8>, i32, tensor<1x?x?x?xi8>, index, index,
           tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) -> tensor<1x?x?x?xi8>
    util.return %r : tensor<1x?x?x?xi8>
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

  // The convolution of stride 2 down and 1 across (no dilation) from a fill: kws's
  // first layer as the TFLite translator writes it (10 x 2 taps over channel pairs).
  transform.named_sequence @fill_conv_down2(%op: !transform.any_op {transform.readonly})
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
                                       strides = dense<[2, 1]> : tensor<2xi64>}
            ins(%x, %w : tensor<1x?x?x?xi8>, tensor<?x?x?x?xi8>)
            outs(%sums : tensor<1x?x?x?xi32>) -> tensor<1x?x?x?xi32>
    } : (!transform.any_op) -> (!transform.any_value, !transform.any_value)
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

  // The kernel's executable and the functions its wrappers call, in the module of `op`.
  transform.named_sequence @import_conv(%op: !transform.any_op {transform.readonly})
      -> !transform.any_op {
    %module = transform.util.get_nearest_symbol_table %op : (!transform.any_op) -> !transform.any_op
    %exe_conv_s8 = transform.util.import_symbol @board_conv_s8 into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    %exe_conv_q8 = transform.util.import_symbol @board_conv_q8 into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    %exe_dw_q8 = transform.util.import_symbol @board_dw_q8 into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    %exe_place_q8 = transform.util.import_symbol @board_place_q8 into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    %conv = transform.util.import_symbol @ireerv_conv_s8 into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    %padded = transform.util.import_symbol @ireerv_conv_s8_padded into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    %q8 = transform.util.import_symbol @ireerv_conv_q8 into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    %rgb = transform.util.import_symbol @ireerv_rgb_blocks into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    %zeros = transform.util.import_symbol @ireerv_zeros_like into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    %q16 = transform.util.import_symbol @ireerv_conv_q16 into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    %table = transform.util.import_symbol @ireerv_q8_table into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    %kinds = transform.util.import_symbol @ireerv_q8_kinds into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    %modes = transform.util.import_symbol @ireerv_q8_mode into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    %dw16 = transform.util.import_symbol @ireerv_dw_q16 into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    %dw_call = transform.util.import_symbol @ireerv_dw_call into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    %dw8 = transform.util.import_symbol @ireerv_dw_q8 into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    %dw_table = transform.util.import_symbol @ireerv_dw_table into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    %row_groups = transform.util.import_symbol @ireerv_row_groups into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    %group_of = transform.util.import_symbol @ireerv_group_of into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    transform.yield %module : !transform.any_op
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

  // The ops around a convolution that the requantising kernel takes: the translator's
  // requantisation (its mark ireerv.requant, formats/requant_generic.py) reads the
  // sums plus the bias (IREE's broadcast of it, added after the convolution: the
  // board's flag --iree-global-opt-detach-elementwise-from-named-ops), and an int8
  // cast reads it.  Each matcher below finds them again: an include that yields
  // handles it found crashes IREE v3.9.0's interpreter.
  transform.named_sequence @requant_chain(%cast: !transform.any_op {transform.readonly}) {
    transform.match.operation_name %cast ["linalg.generic"] : !transform.any_op
    transform.iree.match.regions %cast : !transform.any_op {
      ^bb0(%a: tensor<1x?x?x?xi32>, %o: tensor<1x?x?x?xi8>):
        %g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>,
                                              affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                             iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
            ins(%a : tensor<1x?x?x?xi32>) outs(%o : tensor<1x?x?x?xi8>) {
        ^bb0(%x: i32, %z: i8):
          %t = arith.trunci %x : i32 to i8
          linalg.yield %t : i8
        } -> tensor<1x?x?x?xi8>
    }
    %requantised = transform.get_operand %cast[0] : (!transform.any_op) -> !transform.any_value
    %r = transform.get_defining_op %requantised : (!transform.any_value) -> !transform.any_op
    transform.match.operation_name %r ["linalg.generic"] : !transform.any_op
    %sums = transform.get_operand %r[0] : (!transform.any_op) -> !transform.any_value
    %add = transform.get_defining_op %sums : (!transform.any_value) -> !transform.any_op
    transform.match.operation_name %add ["linalg.generic"] : !transform.any_op
    transform.iree.match.regions %add : !transform.any_op {
      ^bb0(%a: tensor<1x?x?x?xi32>, %b: tensor<1x?x?x?xi32>, %o: tensor<1x?x?x?xi32>):
        %g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>,
                                              affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>,
                                              affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                             iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
            ins(%a, %b : tensor<1x?x?x?xi32>, tensor<1x?x?x?xi32>)
            outs(%o : tensor<1x?x?x?xi32>) {
        ^bb0(%x: i32, %y: i32, %z: i32):
          %s = arith.addi %x, %y : i32
          linalg.yield %s : i32
        } -> tensor<1x?x?x?xi32>
    }
    %spread = transform.get_operand %add[1] : (!transform.any_op) -> !transform.any_value
    %broadcast = transform.get_defining_op %spread : (!transform.any_value) -> !transform.any_op
    transform.match.operation_name %broadcast ["linalg.generic"] : !transform.any_op
    transform.iree.match.regions %broadcast : !transform.any_op {
      ^bb0(%a: tensor<?xi32>, %o: tensor<1x?x?x?xi32>):
        %g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3)>,
                                              affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                             iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
            ins(%a : tensor<?xi32>) outs(%o : tensor<1x?x?x?xi32>) {
        ^bb0(%x: i32, %z: i32):
          linalg.yield %x : i32
        } -> tensor<1x?x?x?xi32>
    }
    %bias = transform.get_operand %broadcast[0] : (!transform.any_op) -> !transform.any_value
    transform.iree.match.cast_compatible_type %bias = tensor<?xi32> : !transform.any_value
    transform.yield
  }

  // The convolution of strides 1 and 2 (no dilation) from a fill, for the channel
  // pairs of a pointwise layer (the TFLite translator's 1 x 2 taps, tosa_layout.py
  // channel_pairs): its input, weights and fill value, and its sums.
  transform.named_sequence @fill_conv_pairs(%op: !transform.any_op {transform.readonly})
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
                                       strides = dense<[1, 2]> : tensor<2xi64>}
            ins(%x, %w : tensor<1x?x?x?xi8>, tensor<?x?x?x?xi8>)
            outs(%sums : tensor<1x?x?x?xi32>) -> tensor<1x?x?x?xi32>
    } : (!transform.any_op) -> (!transform.any_value, !transform.any_value)
    transform.yield %ins, %outs : !transform.any_value, !transform.any_value
  }

  // A marked requantisation of an int8 convolution of stride 1 (the cast after it),
  // filters a multiple of 4: a call of the kernel instead.  A silenceable failure
  // where the ops are not such.
  transform.named_sequence @requantised_conv_s1(%cast: !transform.any_op {transform.readonly}) {
    transform.include @requant_chain failures(propagate) (%cast) : (!transform.any_op) -> ()
    %requantised = transform.get_operand %cast[0] : (!transform.any_op) -> !transform.any_value
    %r = transform.get_defining_op %requantised : (!transform.any_value) -> !transform.any_op
    %sums = transform.get_operand %r[0] : (!transform.any_op) -> !transform.any_value
    %add = transform.get_defining_op %sums : (!transform.any_value) -> !transform.any_op
    %acc = transform.get_operand %add[0] : (!transform.any_op) -> !transform.any_value
    transform.iree.match.dim_is_multiple_of %acc[3], 4 : !transform.any_value
    // Rows of outputs, not one (a fully connected layer: its own path below).
    transform.iree.match.dim_bounds %acc[2], umin = 2, none : !transform.any_value
    %conv = transform.get_defining_op %acc : (!transform.any_value) -> !transform.any_op
    transform.match.operation_name %conv ["linalg.conv_2d_nhwc_hwcf"] : !transform.any_op
    %ins, %init = transform.include @fill_conv_s1 failures(propagate) (%conv)
        : (!transform.any_op) -> (!transform.any_value, !transform.any_value)
    %spread = transform.get_operand %add[1] : (!transform.any_op) -> !transform.any_value
    %broadcast = transform.get_defining_op %spread : (!transform.any_value) -> !transform.any_op
    %bias = transform.get_operand %broadcast[0] : (!transform.any_op) -> !transform.any_value
    %shape = transform.get_operand %cast[1] : (!transform.any_op) -> !transform.any_value
    %columns = transform.get_operand %r[1, 2, 3, 4, 5, 6, 7, 8, 9]
        : (!transform.any_op) -> !transform.any_value
    %out = transform.get_result %cast[0] : (!transform.any_op) -> !transform.any_value
    %all = transform.merge_handles %ins, %shape, %bias, %columns : !transform.any_value
    %module = transform.include @import_conv failures(propagate) (%cast)
        : (!transform.any_op) -> !transform.any_op
    %func = transform.util.import_symbol @ireerv_conv_q8_s1 into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    transform.util.cast_and_call %func(%all) -> %out after %cast {
      transform.type_conversion.tensor.cast_shape_dynamic_dims
    } : (!transform.any_op, !transform.any_value, !transform.any_value, !transform.any_op)
        -> !transform.any_op
    transform.yield
  }

  // A marked requantisation of an int8 convolution of stride 2 (the cast after it),
  // filters a multiple of 4: a call of the kernel instead.  A silenceable failure
  // where the ops are not such.
  transform.named_sequence @requantised_conv_s2(%cast: !transform.any_op {transform.readonly}) {
    transform.include @requant_chain failures(propagate) (%cast) : (!transform.any_op) -> ()
    %requantised = transform.get_operand %cast[0] : (!transform.any_op) -> !transform.any_value
    %r = transform.get_defining_op %requantised : (!transform.any_value) -> !transform.any_op
    %sums = transform.get_operand %r[0] : (!transform.any_op) -> !transform.any_value
    %add = transform.get_defining_op %sums : (!transform.any_value) -> !transform.any_op
    %acc = transform.get_operand %add[0] : (!transform.any_op) -> !transform.any_value
    transform.iree.match.dim_is_multiple_of %acc[3], 4 : !transform.any_value
    // Rows of outputs, not one (a fully connected layer: its own path below).
    transform.iree.match.dim_bounds %acc[2], umin = 2, none : !transform.any_value
    %conv = transform.get_defining_op %acc : (!transform.any_value) -> !transform.any_op
    transform.match.operation_name %conv ["linalg.conv_2d_nhwc_hwcf"] : !transform.any_op
    %ins, %init = transform.include @fill_conv_s2 failures(propagate) (%conv)
        : (!transform.any_op) -> (!transform.any_value, !transform.any_value)
    %spread = transform.get_operand %add[1] : (!transform.any_op) -> !transform.any_value
    %broadcast = transform.get_defining_op %spread : (!transform.any_value) -> !transform.any_op
    %bias = transform.get_operand %broadcast[0] : (!transform.any_op) -> !transform.any_value
    %shape = transform.get_operand %cast[1] : (!transform.any_op) -> !transform.any_value
    %columns = transform.get_operand %r[1, 2, 3, 4, 5, 6, 7, 8, 9]
        : (!transform.any_op) -> !transform.any_value
    %out = transform.get_result %cast[0] : (!transform.any_op) -> !transform.any_value
    %all = transform.merge_handles %ins, %shape, %bias, %columns : !transform.any_value
    %module = transform.include @import_conv failures(propagate) (%cast)
        : (!transform.any_op) -> !transform.any_op
    %func = transform.util.import_symbol @ireerv_conv_q8_s2 into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    transform.util.cast_and_call %func(%all) -> %out after %cast {
      transform.type_conversion.tensor.cast_shape_dynamic_dims
    } : (!transform.any_op, !transform.any_value, !transform.any_value, !transform.any_op)
        -> !transform.any_op
    transform.yield
  }

  // A marked requantisation of an int8 convolution over channel pairs (the cast after it),
  // filters a multiple of 4: a call of the kernel instead.  A silenceable failure
  // where the ops are not such.
  transform.named_sequence @requantised_conv_pairs(%cast: !transform.any_op {transform.readonly}) {
    transform.include @requant_chain failures(propagate) (%cast) : (!transform.any_op) -> ()
    %requantised = transform.get_operand %cast[0] : (!transform.any_op) -> !transform.any_value
    %r = transform.get_defining_op %requantised : (!transform.any_value) -> !transform.any_op
    %sums = transform.get_operand %r[0] : (!transform.any_op) -> !transform.any_value
    %add = transform.get_defining_op %sums : (!transform.any_value) -> !transform.any_op
    %acc = transform.get_operand %add[0] : (!transform.any_op) -> !transform.any_value
    transform.iree.match.dim_is_multiple_of %acc[3], 4 : !transform.any_value
    // Rows of outputs, not one (a fully connected layer: its own path below).
    transform.iree.match.dim_bounds %acc[2], umin = 2, none : !transform.any_value
    %conv = transform.get_defining_op %acc : (!transform.any_value) -> !transform.any_op
    transform.match.operation_name %conv ["linalg.conv_2d_nhwc_hwcf"] : !transform.any_op
    %ins, %init = transform.include @fill_conv_pairs failures(propagate) (%conv)
        : (!transform.any_op) -> (!transform.any_value, !transform.any_value)
    %spread = transform.get_operand %add[1] : (!transform.any_op) -> !transform.any_value
    %broadcast = transform.get_defining_op %spread : (!transform.any_value) -> !transform.any_op
    %bias = transform.get_operand %broadcast[0] : (!transform.any_op) -> !transform.any_value
    %shape = transform.get_operand %cast[1] : (!transform.any_op) -> !transform.any_value
    %columns = transform.get_operand %r[1, 2, 3, 4, 5, 6, 7, 8, 9]
        : (!transform.any_op) -> !transform.any_value
    %out = transform.get_result %cast[0] : (!transform.any_op) -> !transform.any_value
    %all = transform.merge_handles %ins, %shape, %bias, %columns : !transform.any_value
    %module = transform.include @import_conv failures(propagate) (%cast)
        : (!transform.any_op) -> !transform.any_op
    %func = transform.util.import_symbol @ireerv_conv_q8_pairs into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    transform.util.cast_and_call %func(%all) -> %out after %cast {
      transform.type_conversion.tensor.cast_shape_dynamic_dims
    } : (!transform.any_op, !transform.any_value, !transform.any_value, !transform.any_op)
        -> !transform.any_op
    transform.yield
  }

  // A marked requantisation of an int8 convolution of stride 2 down and 1 across whose
  // windows are 2 taps of 2 channels (the cast after it), filters a multiple of 4: a
  // call of the kernel instead, a window's row one word.  A silenceable failure where
  // the ops are not such.
  transform.named_sequence @requantised_conv_word_rows(%cast: !transform.any_op {transform.readonly}) {
    transform.include @requant_chain failures(propagate) (%cast) : (!transform.any_op) -> ()
    %requantised = transform.get_operand %cast[0] : (!transform.any_op) -> !transform.any_value
    %r = transform.get_defining_op %requantised : (!transform.any_value) -> !transform.any_op
    %sums = transform.get_operand %r[0] : (!transform.any_op) -> !transform.any_value
    %add = transform.get_defining_op %sums : (!transform.any_value) -> !transform.any_op
    %acc = transform.get_operand %add[0] : (!transform.any_op) -> !transform.any_value
    transform.iree.match.dim_is_multiple_of %acc[3], 4 : !transform.any_value
    transform.iree.match.dim_bounds %acc[2], umin = 2, none : !transform.any_value
    %conv = transform.get_defining_op %acc : (!transform.any_value) -> !transform.any_op
    transform.match.operation_name %conv ["linalg.conv_2d_nhwc_hwcf"] : !transform.any_op
    %ins, %init = transform.include @fill_conv_down2 failures(propagate) (%conv)
        : (!transform.any_op) -> (!transform.any_value, !transform.any_value)
    %w = transform.get_operand %conv[1] : (!transform.any_op) -> !transform.any_value
    transform.iree.match.dim_bounds %w[1], umin = 2, umax = 2 : !transform.any_value
    transform.iree.match.dim_bounds %w[2], umin = 2, umax = 2 : !transform.any_value
    %spread = transform.get_operand %add[1] : (!transform.any_op) -> !transform.any_value
    %broadcast = transform.get_defining_op %spread : (!transform.any_value) -> !transform.any_op
    %bias = transform.get_operand %broadcast[0] : (!transform.any_op) -> !transform.any_value
    %shape = transform.get_operand %cast[1] : (!transform.any_op) -> !transform.any_value
    %columns = transform.get_operand %r[1, 2, 3, 4, 5, 6, 7, 8, 9]
        : (!transform.any_op) -> !transform.any_value
    %out = transform.get_result %cast[0] : (!transform.any_op) -> !transform.any_value
    %all = transform.merge_handles %ins, %shape, %bias, %columns : !transform.any_value
    %module = transform.include @import_conv failures(propagate) (%cast)
        : (!transform.any_op) -> !transform.any_op
    %func = transform.util.import_symbol @ireerv_conv_q8_word_rows into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    transform.util.cast_and_call %func(%all) -> %out after %cast {
      transform.type_conversion.tensor.cast_shape_dynamic_dims
    } : (!transform.any_op, !transform.any_value, !transform.any_value, !transform.any_op)
        -> !transform.any_op
    transform.yield
  }

  // A prescaled layer's requantisation (formats/prescaled.py: int16 weights, the bias
  // among the requantisation's columns) reads the convolution's sums directly.
  transform.named_sequence @requant_chain_scaled(%cast: !transform.any_op {transform.readonly}) {
    transform.match.operation_name %cast ["linalg.generic"] : !transform.any_op
    transform.iree.match.regions %cast : !transform.any_op {
      ^bb0(%a: tensor<1x?x?x?xi32>, %o: tensor<1x?x?x?xi8>):
        %g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>,
                                              affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                             iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
            ins(%a : tensor<1x?x?x?xi32>) outs(%o : tensor<1x?x?x?xi8>) {
        ^bb0(%x: i32, %z: i8):
          %t = arith.trunci %x : i32 to i8
          linalg.yield %t : i8
        } -> tensor<1x?x?x?xi8>
    }
    %requantised = transform.get_operand %cast[0] : (!transform.any_op) -> !transform.any_value
    %r = transform.get_defining_op %requantised : (!transform.any_value) -> !transform.any_op
    transform.match.operation_name %r ["linalg.generic"] : !transform.any_op
    transform.yield
  }

  transform.named_sequence @fill_conv16_s1(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_value, !transform.any_value) {
    %ins, %outs = transform.iree.match.cast_compatible_dag_from_root %op {
      ^bb0(%x: tensor<1x?x?x?xi8>, %w: tensor<?x?x?x?xi16>, %v: i32):
        %one = arith.constant 1 : index
        %two = arith.constant 2 : index
        %three = arith.constant 3 : index
        %oh = tensor.dim %x, %one : tensor<1x?x?x?xi8>
        %ow = tensor.dim %x, %two : tensor<1x?x?x?xi8>
        %f = tensor.dim %w, %three : tensor<?x?x?x?xi16>
        %empty = tensor.empty(%oh, %ow, %f) {"match.operation_name_only"} : tensor<1x?x?x?xi32>
        %sums = linalg.fill ins(%v : i32) outs(%empty : tensor<1x?x?x?xi32>) -> tensor<1x?x?x?xi32>
        %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>,
                                       strides = dense<1> : tensor<2xi64>}
            ins(%x, %w : tensor<1x?x?x?xi8>, tensor<?x?x?x?xi16>)
            outs(%sums : tensor<1x?x?x?xi32>) -> tensor<1x?x?x?xi32>
    } : (!transform.any_op) -> (!transform.any_value, !transform.any_value)
    transform.yield %ins, %outs : !transform.any_value, !transform.any_value
  }
  transform.named_sequence @fill_conv16_pairs(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_value, !transform.any_value) {
    %ins, %outs = transform.iree.match.cast_compatible_dag_from_root %op {
      ^bb0(%x: tensor<1x?x?x?xi8>, %w: tensor<?x?x?x?xi16>, %v: i32):
        %one = arith.constant 1 : index
        %two = arith.constant 2 : index
        %three = arith.constant 3 : index
        %oh = tensor.dim %x, %one : tensor<1x?x?x?xi8>
        %ow = tensor.dim %x, %two : tensor<1x?x?x?xi8>
        %f = tensor.dim %w, %three : tensor<?x?x?x?xi16>
        %empty = tensor.empty(%oh, %ow, %f) {"match.operation_name_only"} : tensor<1x?x?x?xi32>
        %sums = linalg.fill ins(%v : i32) outs(%empty : tensor<1x?x?x?xi32>) -> tensor<1x?x?x?xi32>
        %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>,
                                       strides = dense<[1, 2]> : tensor<2xi64>}
            ins(%x, %w : tensor<1x?x?x?xi8>, tensor<?x?x?x?xi16>)
            outs(%sums : tensor<1x?x?x?xi32>) -> tensor<1x?x?x?xi32>
    } : (!transform.any_op) -> (!transform.any_value, !transform.any_value)
    transform.yield %ins, %outs : !transform.any_value, !transform.any_value
  }
  // A marked requantisation of a prescaled int8 x int16 convolution of stride 1
  // (the cast after it), filters a multiple of 4: a call of the kernel instead.
  transform.named_sequence @requantised_conv16_s1(%cast: !transform.any_op {transform.readonly}) {
    transform.include @requant_chain_scaled failures(propagate) (%cast) : (!transform.any_op) -> ()
    %requantised = transform.get_operand %cast[0] : (!transform.any_op) -> !transform.any_value
    %r = transform.get_defining_op %requantised : (!transform.any_value) -> !transform.any_op
    %acc = transform.get_operand %r[0] : (!transform.any_op) -> !transform.any_value
    transform.iree.match.dim_is_multiple_of %acc[3], 4 : !transform.any_value
    // Rows of outputs, not one (a fully connected layer: its own path below).
    transform.iree.match.dim_bounds %acc[2], umin = 2, none : !transform.any_value
    %conv = transform.get_defining_op %acc : (!transform.any_value) -> !transform.any_op
    transform.match.operation_name %conv ["linalg.conv_2d_nhwc_hwcf"] : !transform.any_op
    %ins, %init = transform.include @fill_conv16_s1 failures(propagate) (%conv)
        : (!transform.any_op) -> (!transform.any_value, !transform.any_value)
    %shape = transform.get_operand %cast[1] : (!transform.any_op) -> !transform.any_value
    %columns = transform.get_operand %r[1, 2, 3, 4, 5, 6, 7, 8, 9]
        : (!transform.any_op) -> !transform.any_value
    %out = transform.get_result %cast[0] : (!transform.any_op) -> !transform.any_value
    %all = transform.merge_handles %ins, %shape, %columns : !transform.any_value
    %module = transform.include @import_conv failures(propagate) (%cast)
        : (!transform.any_op) -> !transform.any_op
    %func = transform.util.import_symbol @ireerv_conv_q16_s1 into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    transform.util.cast_and_call %func(%all) -> %out after %cast {
      transform.type_conversion.tensor.cast_shape_dynamic_dims
    } : (!transform.any_op, !transform.any_value, !transform.any_value, !transform.any_op)
        -> !transform.any_op
    transform.yield
  }

  // A marked requantisation of a prescaled int8 x int16 convolution over channel pairs
  // (the cast after it), filters a multiple of 4: a call of the kernel instead.
  transform.named_sequence @requantised_conv16_pairs(%cast: !transform.any_op {transform.readonly}) {
    transform.include @requant_chain_scaled failures(propagate) (%cast) : (!transform.any_op) -> ()
    %requantised = transform.get_operand %cast[0] : (!transform.any_op) -> !transform.any_value
    %r = transform.get_defining_op %requantised : (!transform.any_value) -> !transform.any_op
    %acc = transform.get_operand %r[0] : (!transform.any_op) -> !transform.any_value
    transform.iree.match.dim_is_multiple_of %acc[3], 4 : !transform.any_value
    // Rows of outputs, not one (a fully connected layer: its own path below).
    transform.iree.match.dim_bounds %acc[2], umin = 2, none : !transform.any_value
    %conv = transform.get_defining_op %acc : (!transform.any_value) -> !transform.any_op
    transform.match.operation_name %conv ["linalg.conv_2d_nhwc_hwcf"] : !transform.any_op
    %ins, %init = transform.include @fill_conv16_pairs failures(propagate) (%conv)
        : (!transform.any_op) -> (!transform.any_value, !transform.any_value)
    %shape = transform.get_operand %cast[1] : (!transform.any_op) -> !transform.any_value
    %columns = transform.get_operand %r[1, 2, 3, 4, 5, 6, 7, 8, 9]
        : (!transform.any_op) -> !transform.any_value
    %out = transform.get_result %cast[0] : (!transform.any_op) -> !transform.any_value
    %all = transform.merge_handles %ins, %shape, %columns : !transform.any_value
    %module = transform.include @import_conv failures(propagate) (%cast)
        : (!transform.any_op) -> !transform.any_op
    %func = transform.util.import_symbol @ireerv_conv_q16_pairs into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    transform.util.cast_and_call %func(%all) -> %out after %cast {
      transform.type_conversion.tensor.cast_shape_dynamic_dims
    } : (!transform.any_op, !transform.any_value, !transform.any_value, !transform.any_op)
        -> !transform.any_op
    transform.yield
  }

  // The depthwise convolutions of a prescaled layer from a fill, strides 1 and 2 (no
  // dilation): input, weights and fill value, and the sums.
  transform.named_sequence @fill_dw16_s1(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_value, !transform.any_value) {
    %ins, %outs = transform.iree.match.cast_compatible_dag_from_root %op {
      ^bb0(%x: tensor<1x?x?x?xi8>, %w: tensor<?x?x?xi16>, %v: i32):
        %one = arith.constant 1 : index
        %two = arith.constant 2 : index
        %three = arith.constant 3 : index
        %oh = tensor.dim %x, %one : tensor<1x?x?x?xi8>
        %ow = tensor.dim %x, %two : tensor<1x?x?x?xi8>
        %c = tensor.dim %x, %three : tensor<1x?x?x?xi8>
        %empty = tensor.empty(%oh, %ow, %c) {"match.operation_name_only"} : tensor<1x?x?x?xi32>
        %sums = linalg.fill ins(%v : i32) outs(%empty : tensor<1x?x?x?xi32>) -> tensor<1x?x?x?xi32>
        %r = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>,
                                               strides = dense<1> : tensor<2xi64>}
            ins(%x, %w : tensor<1x?x?x?xi8>, tensor<?x?x?xi16>)
            outs(%sums : tensor<1x?x?x?xi32>) -> tensor<1x?x?x?xi32>
    } : (!transform.any_op) -> (!transform.any_value, !transform.any_value)
    transform.yield %ins, %outs : !transform.any_value, !transform.any_value
  }
  transform.named_sequence @fill_dw16_s2(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_value, !transform.any_value) {
    %ins, %outs = transform.iree.match.cast_compatible_dag_from_root %op {
      ^bb0(%x: tensor<1x?x?x?xi8>, %w: tensor<?x?x?xi16>, %v: i32):
        %one = arith.constant 1 : index
        %two = arith.constant 2 : index
        %three = arith.constant 3 : index
        %oh = tensor.dim %x, %one : tensor<1x?x?x?xi8>
        %ow = tensor.dim %x, %two : tensor<1x?x?x?xi8>
        %c = tensor.dim %x, %three : tensor<1x?x?x?xi8>
        %empty = tensor.empty(%oh, %ow, %c) {"match.operation_name_only"} : tensor<1x?x?x?xi32>
        %sums = linalg.fill ins(%v : i32) outs(%empty : tensor<1x?x?x?xi32>) -> tensor<1x?x?x?xi32>
        %r = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>,
                                               strides = dense<2> : tensor<2xi64>}
            ins(%x, %w : tensor<1x?x?x?xi8>, tensor<?x?x?xi16>)
            outs(%sums : tensor<1x?x?x?xi32>) -> tensor<1x?x?x?xi32>
    } : (!transform.any_op) -> (!transform.any_value, !transform.any_value)
    transform.yield %ins, %outs : !transform.any_value, !transform.any_value
  }

  // A marked requantisation of a prescaled int8 x int16 depthwise convolution of
  // stride 1 (the cast after it): a call of the depthwise kernel instead.
  transform.named_sequence @requantised_dw16_s1(%cast: !transform.any_op {transform.readonly}) {
    transform.include @requant_chain_scaled failures(propagate) (%cast) : (!transform.any_op) -> ()
    %requantised = transform.get_operand %cast[0] : (!transform.any_op) -> !transform.any_value
    %r = transform.get_defining_op %requantised : (!transform.any_value) -> !transform.any_op
    %acc = transform.get_operand %r[0] : (!transform.any_op) -> !transform.any_value
    // 8 rows and more, of 5 outputs and more: a channel's columns cost the kernel about
    // 50 cycles a row, which kws's 25 rows of 5 repay (with the default harts, a later
    // call: kws 3,418,950 cycles through IREE's code, 3,282,932 through the kernel),
    // and vww's 6 rows of 6, 6 workgroups for 4 harts, do not (8,424,760 cycles without
    // them, 8,558,276 with).  The translator's other depthwise form goes to the kernel
    // whatever its rows (@requantised_dw8_s1).
    transform.iree.match.dim_bounds %acc[1], umin = 8, none : !transform.any_value
    transform.iree.match.dim_bounds %acc[2], umin = 5, none : !transform.any_value
    %conv = transform.get_defining_op %acc : (!transform.any_value) -> !transform.any_op
    transform.match.operation_name %conv ["linalg.depthwise_conv_2d_nhwc_hwc"] : !transform.any_op
    %ins, %init = transform.include @fill_dw16_s1 failures(propagate) (%conv)
        : (!transform.any_op) -> (!transform.any_value, !transform.any_value)
    // 3x3 windows: the kernel's table holds their filters' rows as words.
    %window = transform.get_operand %conv[1] : (!transform.any_op) -> !transform.any_value
    transform.iree.match.dim_bounds %window[0], umin = 3, umax = 3 : !transform.any_value
    transform.iree.match.dim_bounds %window[1], umin = 3, umax = 3 : !transform.any_value
    %shape = transform.get_operand %cast[1] : (!transform.any_op) -> !transform.any_value
    %columns = transform.get_operand %r[1, 2, 3, 4, 5, 6, 7, 8, 9]
        : (!transform.any_op) -> !transform.any_value
    %out = transform.get_result %cast[0] : (!transform.any_op) -> !transform.any_value
    %all = transform.merge_handles %ins, %shape, %columns : !transform.any_value
    %module = transform.include @import_conv failures(propagate) (%cast)
        : (!transform.any_op) -> !transform.any_op
    %func = transform.util.import_symbol @ireerv_dw_q16_s1 into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    transform.util.cast_and_call %func(%all) -> %out after %cast {
      transform.type_conversion.tensor.cast_shape_dynamic_dims
    } : (!transform.any_op, !transform.any_value, !transform.any_value, !transform.any_op)
        -> !transform.any_op
    transform.yield
  }

  // A marked requantisation of a prescaled int8 x int16 depthwise convolution of
  // stride 2 (the cast after it): a call of the depthwise kernel instead.
  transform.named_sequence @requantised_dw16_s2(%cast: !transform.any_op {transform.readonly}) {
    transform.include @requant_chain_scaled failures(propagate) (%cast) : (!transform.any_op) -> ()
    %requantised = transform.get_operand %cast[0] : (!transform.any_op) -> !transform.any_value
    %r = transform.get_defining_op %requantised : (!transform.any_value) -> !transform.any_op
    %acc = transform.get_operand %r[0] : (!transform.any_op) -> !transform.any_value
    // 5 rows and more, of 5 outputs and more: fewer than 8 rows go in one workgroup
    // (@ireerv_dw_call; vww's 12 -> 6 layer: 6,678,113 -> 6,650,593 cycles a call).
    transform.iree.match.dim_bounds %acc[1], umin = 5, none : !transform.any_value
    transform.iree.match.dim_bounds %acc[2], umin = 5, none : !transform.any_value
    %conv = transform.get_defining_op %acc : (!transform.any_value) -> !transform.any_op
    transform.match.operation_name %conv ["linalg.depthwise_conv_2d_nhwc_hwc"] : !transform.any_op
    %ins, %init = transform.include @fill_dw16_s2 failures(propagate) (%conv)
        : (!transform.any_op) -> (!transform.any_value, !transform.any_value)
    // 3x3 windows: the kernel's table holds their filters' rows as words.
    %window = transform.get_operand %conv[1] : (!transform.any_op) -> !transform.any_value
    transform.iree.match.dim_bounds %window[0], umin = 3, umax = 3 : !transform.any_value
    transform.iree.match.dim_bounds %window[1], umin = 3, umax = 3 : !transform.any_value
    %shape = transform.get_operand %cast[1] : (!transform.any_op) -> !transform.any_value
    %columns = transform.get_operand %r[1, 2, 3, 4, 5, 6, 7, 8, 9]
        : (!transform.any_op) -> !transform.any_value
    %out = transform.get_result %cast[0] : (!transform.any_op) -> !transform.any_value
    %all = transform.merge_handles %ins, %shape, %columns : !transform.any_value
    %module = transform.include @import_conv failures(propagate) (%cast)
        : (!transform.any_op) -> !transform.any_op
    %func = transform.util.import_symbol @ireerv_dw_q16_s2 into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    transform.util.cast_and_call %func(%all) -> %out after %cast {
      transform.type_conversion.tensor.cast_shape_dynamic_dims
    } : (!transform.any_op, !transform.any_value, !transform.any_value, !transform.any_op)
        -> !transform.any_op
    transform.yield
  }

  // The ops around an int8 depthwise convolution of the translator's other form that
  // the depthwise kernel takes (as @requant_chain for the convolutions): a marked
  // requantisation (the cast after it) of the sums plus the bias, [C] (a generic), of
  // a 3x3 depthwise_conv_2d_nhwc_hwcm whose [1][OH][OW][C][1] sums are collapsed.
  transform.named_sequence @dw8_chain(%cast: !transform.any_op {transform.readonly}) {
    transform.include @requant_chain_scaled failures(propagate) (%cast) : (!transform.any_op) -> ()
    %requantised = transform.get_operand %cast[0] : (!transform.any_op) -> !transform.any_value
    %r = transform.get_defining_op %requantised : (!transform.any_value) -> !transform.any_op
    %sums = transform.get_operand %r[0] : (!transform.any_op) -> !transform.any_value
    %add = transform.get_defining_op %sums : (!transform.any_value) -> !transform.any_op
    transform.match.operation_name %add ["linalg.generic"] : !transform.any_op
    transform.iree.match.regions %add : !transform.any_op {
      ^bb0(%b: tensor<?xi32>, %a: tensor<1x?x?x?xi32>, %o: tensor<1x?x?x?xi32>):
        %g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3)>,
                                              affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>,
                                              affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                             iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
            ins(%b, %a : tensor<?xi32>, tensor<1x?x?x?xi32>)
            outs(%o : tensor<1x?x?x?xi32>) {
        ^bb0(%x: i32, %y: i32, %z: i32):
          %s = arith.addi %x, %y : i32
          linalg.yield %s : i32
        } -> tensor<1x?x?x?xi32>
    }
    %collapsed = transform.get_operand %add[1] : (!transform.any_op) -> !transform.any_value
    %collapse = transform.get_defining_op %collapsed : (!transform.any_value) -> !transform.any_op
    transform.match.operation_name %collapse ["tensor.collapse_shape"] : !transform.any_op
    %acc = transform.get_operand %collapse[0] : (!transform.any_op) -> !transform.any_value
    %conv = transform.get_defining_op %acc : (!transform.any_value) -> !transform.any_op
    transform.match.operation_name %conv ["linalg.depthwise_conv_2d_nhwc_hwcm"] : !transform.any_op
    // 3x3 windows: the kernel's table holds their filters' rows as words.
    %window = transform.get_operand %conv[1] : (!transform.any_op) -> !transform.any_value
    transform.iree.match.dim_bounds %window[0], umin = 3, umax = 3 : !transform.any_value
    transform.iree.match.dim_bounds %window[1], umin = 3, umax = 3 : !transform.any_value
    transform.yield
  }

  transform.named_sequence @fill_dw8_s1(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_value, !transform.any_value) {
    %ins, %outs = transform.iree.match.cast_compatible_dag_from_root %op {
      ^bb0(%x: tensor<1x?x?x?xi8>, %w: tensor<?x?x?x1xi8>, %v: i32):
        %one = arith.constant 1 : index
        %two = arith.constant 2 : index
        %three = arith.constant 3 : index
        %oh = tensor.dim %x, %one : tensor<1x?x?x?xi8>
        %ow = tensor.dim %x, %two : tensor<1x?x?x?xi8>
        %c = tensor.dim %x, %three : tensor<1x?x?x?xi8>
        %empty = tensor.empty(%oh, %ow, %c) {"match.operation_name_only"} : tensor<1x?x?x?x1xi32>
        %sums = linalg.fill ins(%v : i32) outs(%empty : tensor<1x?x?x?x1xi32>) -> tensor<1x?x?x?x1xi32>
        %r = linalg.depthwise_conv_2d_nhwc_hwcm {dilations = dense<1> : tensor<2xi64>,
                                                strides = dense<1> : tensor<2xi64>}
            ins(%x, %w : tensor<1x?x?x?xi8>, tensor<?x?x?x1xi8>)
            outs(%sums : tensor<1x?x?x?x1xi32>) -> tensor<1x?x?x?x1xi32>
    } : (!transform.any_op) -> (!transform.any_value, !transform.any_value)
    transform.yield %ins, %outs : !transform.any_value, !transform.any_value
  }

  // A marked requantisation of an int8 depthwise convolution of stride 1 in the
  // translator's other form (the cast after it): a call of the depthwise kernel.  Its
  // layers in the networks here are small (vww's of 6 and 3 rows), and through the
  // kernel they took 1,102,553 cycles against IREE's 1,411,504 (a call of vww, the
  // default harts).  The prescaled 12x12 -> 6x6 one of vww stays IREE's (as
  // @requantised_dw16_s1 says): through the kernel vww took 7,657,673 cycles, 7,591,395
  // without (its table and weights staged at each call, the weight cache's room less).
  transform.named_sequence @requantised_dw8_s1(%cast: !transform.any_op {transform.readonly}) {
    transform.include @dw8_chain failures(propagate) (%cast) : (!transform.any_op) -> ()
    %requantised = transform.get_operand %cast[0] : (!transform.any_op) -> !transform.any_value
    %r = transform.get_defining_op %requantised : (!transform.any_value) -> !transform.any_op
    %sums = transform.get_operand %r[0] : (!transform.any_op) -> !transform.any_value
    %add = transform.get_defining_op %sums : (!transform.any_value) -> !transform.any_op
    %collapsed = transform.get_operand %add[1] : (!transform.any_op) -> !transform.any_value
    %collapse = transform.get_defining_op %collapsed : (!transform.any_value) -> !transform.any_op
    %acc = transform.get_operand %collapse[0] : (!transform.any_op) -> !transform.any_value
    %conv = transform.get_defining_op %acc : (!transform.any_value) -> !transform.any_op
    %ins, %init = transform.include @fill_dw8_s1 failures(propagate) (%conv)
        : (!transform.any_op) -> (!transform.any_value, !transform.any_value)
    %bias = transform.get_operand %add[0] : (!transform.any_op) -> !transform.any_value
    %shape = transform.get_operand %cast[1] : (!transform.any_op) -> !transform.any_value
    %columns = transform.get_operand %r[1, 2, 3, 4, 5, 6, 7, 8, 9]
        : (!transform.any_op) -> !transform.any_value
    %out = transform.get_result %cast[0] : (!transform.any_op) -> !transform.any_value
    %all = transform.merge_handles %ins, %shape, %bias, %columns : !transform.any_value
    %module = transform.include @import_conv failures(propagate) (%cast)
        : (!transform.any_op) -> !transform.any_op
    %func = transform.util.import_symbol @ireerv_dw_q8_s1 into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    transform.util.cast_and_call %func(%all) -> %out after %cast {
      transform.type_conversion.tensor.cast_shape_dynamic_dims
    } : (!transform.any_op, !transform.any_value, !transform.any_value, !transform.any_op)
        -> !transform.any_op
    transform.yield
  }

  transform.named_sequence @fill_dw8_s2(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_value, !transform.any_value) {
    %ins, %outs = transform.iree.match.cast_compatible_dag_from_root %op {
      ^bb0(%x: tensor<1x?x?x?xi8>, %w: tensor<?x?x?x1xi8>, %v: i32):
        %one = arith.constant 1 : index
        %two = arith.constant 2 : index
        %three = arith.constant 3 : index
        %oh = tensor.dim %x, %one : tensor<1x?x?x?xi8>
        %ow = tensor.dim %x, %two : tensor<1x?x?x?xi8>
        %c = tensor.dim %x, %three : tensor<1x?x?x?xi8>
        %empty = tensor.empty(%oh, %ow, %c) {"match.operation_name_only"} : tensor<1x?x?x?x1xi32>
        %sums = linalg.fill ins(%v : i32) outs(%empty : tensor<1x?x?x?x1xi32>) -> tensor<1x?x?x?x1xi32>
        %r = linalg.depthwise_conv_2d_nhwc_hwcm {dilations = dense<1> : tensor<2xi64>,
                                                strides = dense<2> : tensor<2xi64>}
            ins(%x, %w : tensor<1x?x?x?xi8>, tensor<?x?x?x1xi8>)
            outs(%sums : tensor<1x?x?x?x1xi32>) -> tensor<1x?x?x?x1xi32>
    } : (!transform.any_op) -> (!transform.any_value, !transform.any_value)
    transform.yield %ins, %outs : !transform.any_value, !transform.any_value
  }

  // A marked requantisation of an int8 depthwise convolution of stride 2 in the
  // translator's other form (the cast after it): a call of the depthwise kernel.
  transform.named_sequence @requantised_dw8_s2(%cast: !transform.any_op {transform.readonly}) {
    transform.include @dw8_chain failures(propagate) (%cast) : (!transform.any_op) -> ()
    %requantised = transform.get_operand %cast[0] : (!transform.any_op) -> !transform.any_value
    %r = transform.get_defining_op %requantised : (!transform.any_value) -> !transform.any_op
    %sums = transform.get_operand %r[0] : (!transform.any_op) -> !transform.any_value
    %add = transform.get_defining_op %sums : (!transform.any_value) -> !transform.any_op
    %collapsed = transform.get_operand %add[1] : (!transform.any_op) -> !transform.any_value
    %collapse = transform.get_defining_op %collapsed : (!transform.any_value) -> !transform.any_op
    %acc = transform.get_operand %collapse[0] : (!transform.any_op) -> !transform.any_value
    %conv = transform.get_defining_op %acc : (!transform.any_value) -> !transform.any_op
    %ins, %init = transform.include @fill_dw8_s2 failures(propagate) (%conv)
        : (!transform.any_op) -> (!transform.any_value, !transform.any_value)
    %bias = transform.get_operand %add[0] : (!transform.any_op) -> !transform.any_value
    %shape = transform.get_operand %cast[1] : (!transform.any_op) -> !transform.any_value
    %columns = transform.get_operand %r[1, 2, 3, 4, 5, 6, 7, 8, 9]
        : (!transform.any_op) -> !transform.any_value
    %out = transform.get_result %cast[0] : (!transform.any_op) -> !transform.any_value
    %all = transform.merge_handles %ins, %shape, %bias, %columns : !transform.any_value
    %module = transform.include @import_conv failures(propagate) (%cast)
        : (!transform.any_op) -> !transform.any_op
    %func = transform.util.import_symbol @ireerv_dw_q8_s2 into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    transform.util.cast_and_call %func(%all) -> %out after %cast {
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
  // that the kernel did not take: their img2col is a gather of few bytes, their
  // matmul the board's kernel's.  kws's first layer (10 x 2 taps over channel pairs,
  // 320,000 MACs, k = 40) went this way (kws 4,692,280 -> 4,162,001 cycles a later
  // call) until @requantised_conv_word_rows took it (3,282,932 -> 3,166,183).
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

  // The op placing a layer's computed and pruned channels (its mark ireerv.place): a
  // call of place_q8 instead.  Its computed channels are the value its tensor.extract
  // reads.
  transform.named_sequence @placed(%p: !transform.any_op {transform.readonly}) {
    %extract = transform.structured.match ops{["tensor.extract"]} in %p
        : (!transform.any_op) -> !transform.any_op
    %part = transform.get_operand %extract[0] : (!transform.any_op) -> !transform.any_value
    %columns = transform.get_operand %p[0, 1] : (!transform.any_op) -> !transform.any_value
    %out = transform.get_result %p[0] : (!transform.any_op) -> !transform.any_value
    %all = transform.merge_handles %part, %columns : !transform.any_value
    %module = transform.include @import_conv failures(propagate) (%p)
        : (!transform.any_op) -> !transform.any_op
    %func = transform.util.import_symbol @ireerv_place into %module if undefined
        : (!transform.any_op) -> !transform.any_op
    transform.util.cast_and_call %func(%all) -> %out after %p {
      transform.type_conversion.tensor.cast_shape_dynamic_dims
    } : (!transform.any_op, !transform.any_value, !transform.any_value, !transform.any_op)
        -> !transform.any_op
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
          @match_i8_conv3x3_rgb_s1 -> @call_conv_s8_s1_padded
        : (!transform.any_op) -> !transform.any_op
    }
    %fcs = transform.collect_matching @match_i8_fully_connected in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %fcs : !transform.any_op {
    ^bb0(%conv: !transform.any_op):
      %img2col, %result = transform.structured.convert_conv2d_to_img2col %conv
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    }
    // The int8 convolutions left, with their requantisation: the kernel writes int8
    // (before the inliner canonicalizes: it merges a requantisation's equal columns).
    %requants = transform.structured.match ops{["linalg.generic"]}
        attributes {ireerv.requant} in %module : (!transform.any_op) -> !transform.any_op
    transform.foreach %requants : !transform.any_op {
    ^bb0(%r: !transform.any_op):
      %cast = transform.get_consumers_of_result %r[0] : (!transform.any_op) -> !transform.any_op
      transform.sequence %cast : !transform.any_op failures(suppress) {
      ^bb0(%c: !transform.any_op):
        transform.include @requantised_conv_s1 failures(propagate) (%c)
            : (!transform.any_op) -> ()
      }
      transform.sequence %cast : !transform.any_op failures(suppress) {
      ^bb0(%c: !transform.any_op):
        transform.include @requantised_conv_s2 failures(propagate) (%c)
            : (!transform.any_op) -> ()
      }
      transform.sequence %cast : !transform.any_op failures(suppress) {
      ^bb0(%c: !transform.any_op):
        transform.include @requantised_conv_pairs failures(propagate) (%c)
            : (!transform.any_op) -> ()
      }
      transform.sequence %cast : !transform.any_op failures(suppress) {
      ^bb0(%c: !transform.any_op):
        transform.include @requantised_conv_word_rows failures(propagate) (%c)
            : (!transform.any_op) -> ()
      }
      transform.sequence %cast : !transform.any_op failures(suppress) {
      ^bb0(%c: !transform.any_op):
        transform.include @requantised_conv16_s1 failures(propagate) (%c)
            : (!transform.any_op) -> ()
      }
      transform.sequence %cast : !transform.any_op failures(suppress) {
      ^bb0(%c: !transform.any_op):
        transform.include @requantised_conv16_pairs failures(propagate) (%c)
            : (!transform.any_op) -> ()
      }
      transform.sequence %cast : !transform.any_op failures(suppress) {
      ^bb0(%c: !transform.any_op):
        transform.include @requantised_dw16_s1 failures(propagate) (%c)
            : (!transform.any_op) -> ()
      }
      transform.sequence %cast : !transform.any_op failures(suppress) {
      ^bb0(%c: !transform.any_op):
        transform.include @requantised_dw16_s2 failures(propagate) (%c)
            : (!transform.any_op) -> ()
      }
      transform.sequence %cast : !transform.any_op failures(suppress) {
      ^bb0(%c: !transform.any_op):
        transform.include @requantised_dw8_s1 failures(propagate) (%c)
            : (!transform.any_op) -> ()
      }
      transform.sequence %cast : !transform.any_op failures(suppress) {
      ^bb0(%c: !transform.any_op):
        transform.include @requantised_dw8_s2 failures(propagate) (%c)
            : (!transform.any_op) -> ()
      }
    }
    transform.apply_dce to %module : !transform.any_op
    // Few-channel layers the kernel did not take (kws's first now goes to it).
    %firsts = transform.collect_matching @match_i8_few_channels in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %firsts : !transform.any_op {
    ^bb0(%conv: !transform.any_op):
      %img2col, %result = transform.structured.convert_conv2d_to_img2col %conv
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    }
    %wides = transform.collect_matching @match_i8_pointwise_wide in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %wides : !transform.any_op {
    ^bb0(%conv: !transform.any_op):
      %img2col, %result = transform.structured.convert_conv2d_to_img2col %conv
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    }
    // The ops placing computed and pruned channels (formats/pruned_outputs.py).
    %places = transform.structured.match ops{["linalg.generic"]}
        attributes {ireerv.place} in %module : (!transform.any_op) -> !transform.any_op
    transform.foreach %places : !transform.any_op {
    ^bb0(%p: !transform.any_op):
      transform.sequence %p : !transform.any_op failures(suppress) {
      ^bb0(%q: !transform.any_op):
        transform.include @placed failures(propagate) (%q) : (!transform.any_op) -> ()
      }
    }
    // The calls inlined, so each dispatch sees its own shapes (and the weights'
    // transpose is folded at compile time).
    %inlined = transform.apply_registered_pass "inline" to %module
        : (!transform.any_op) -> !transform.any_op
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
