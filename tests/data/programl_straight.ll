; Hand-written ProGraML fixture: one block of straight-line code with a global and a constant
; used twice. Expected nodes and edges are derived by hand in observations/programl_test.cc.
target triple = "x86_64-pc-linux-gnu"

@counter = global i32 0

define i32 @scale(i32 %0, i32 %1) {
entry:
  %a = mul i32 %0, 3
  %b = add i32 %a, 3
  %g = load i32, ptr @counter
  %c = sub i32 %b, %g
  store i32 %c, ptr @counter
  %d = xor i32 %c, %1
  ret i32 %d
}
