// Quantised matmul: int8 x int8 accumulated in int32 (operands sign-extended).
func.func @qmatmul_i8i8i32(%lhs: tensor<8x16xi8>, %rhs: tensor<16x12xi8>) -> tensor<8x12xi32> {
  %zero = arith.constant 0 : i32
  %empty = tensor.empty() : tensor<8x12xi32>
  %acc = linalg.fill ins(%zero : i32) outs(%empty : tensor<8x12xi32>) -> tensor<8x12xi32>
  %result = linalg.matmul ins(%lhs, %rhs : tensor<8x16xi8>, tensor<16x12xi8>)
                          outs(%acc : tensor<8x12xi32>) -> tensor<8x12xi32>
  return %result : tensor<8x12xi32>
}
