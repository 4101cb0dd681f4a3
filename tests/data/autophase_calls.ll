; Hand-written fixture for Autophase's call and memory features; the expected values are derived
; in observations/autophase_test.cc.
target triple = "x86_64-pc-linux-gnu"

declare i32 @get(i32)
declare void @put(i32)
declare i64 @wide()

define i32 @calls(ptr %fp, ptr %p) {
entry:
  %a = call i32 @get(i32 1)
  call void @put(i32 %a)
  %b = call i64 @wide()
  %c = call i32 %fp(i32 %a)
  %d = call i32 asm "mov $1, $0", "=r,r"(i32 %c)
  fence seq_cst
  %old = atomicrmw add ptr %p, i32 %d seq_cst
  %q = getelementptr i32, ptr %p, i64 1
  store i32 %old, ptr %q
  ret i32 %old
}
