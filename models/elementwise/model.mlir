// Elementwise on a dynamic shape: y = a * b + c.
func.func @fma(%a: tensor<?xf32>, %b: tensor<?xf32>, %c: tensor<?xf32>) -> tensor<?xf32> {
  %p = arith.mulf %a, %b : tensor<?xf32>
  %s = arith.addf %p, %c : tensor<?xf32>
  return %s : tensor<?xf32>
}
