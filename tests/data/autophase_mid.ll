; Hand-written fixture: one block of exactly 15 instructions (BlockMid), one of each opcode that
; Autophase counts and the CFG fixture lacks.
target triple = "x86_64-pc-linux-gnu"

define i32 @mid(i32 %a) {
entry:
  %1 = xor i32 %a, 7
  %2 = shl i32 %1, 2
  %3 = lshr i32 %2, 1
  %4 = ashr i32 %3, 1
  %5 = and i32 %4, 255
  %6 = or i32 %5, 16
  %7 = trunc i32 %6 to i16
  %8 = zext i16 %7 to i64
  %9 = sext i16 %7 to i32
  %10 = select i1 true, i32 %9, i32 %a
  %11 = sub i32 %10, %a
  %12 = mul i32 %11, %11
  %13 = bitcast i32 %12 to float
  %14 = getelementptr i8, ptr null, i64 %8
  ret i32 %12
}
