// Quantised matmul at 64x64x64: int8 x int8 accumulated in int32 (operands
// sign-extended), the size the harts table measures.
func.func @qmatmul64_i8i8i32(%lhs: tensor<64x64xi8>, %rhs: tensor<64x64xi8>) -> tensor<64x64xi32> {
  %zero = arith.constant 0 : i32
  %empty = tensor.empty() : tensor<64x64xi32>
  %acc = linalg.fill ins(%zero : i32) outs(%empty : tensor<64x64xi32>) -> tensor<64x64xi32>
  %result = linalg.matmul ins(%lhs, %rhs : tensor<64x64xi8>, tensor<64x64xi8>)
                          outs(%acc : tensor<64x64xi32>) -> tensor<64x64xi32>
  return %result : tensor<64x64xi32>
}
