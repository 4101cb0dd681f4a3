; Hand-written ProGraML fixture: a call to a defined function with two returns, a call to an
; external declaration, an intrinsic, a function passed as a pointer and an indirect call.
; Expected values are derived in observations/programl_test.cc.
target triple = "x86_64-pc-linux-gnu"

declare i32 @ext(i32)
declare void @register(ptr)
declare i32 @llvm.smax.i32(i32, i32)

define i32 @callee(i32 %x) {
entry:
  %c = icmp eq i32 %x, 0
  br i1 %c, label %zero, label %nonzero
zero:
  ret i32 0
nonzero:
  %y = add i32 %x, -1
  ret i32 %y
}

define i32 @caller(i32 %a, ptr %fp) {
entry:
  %r = call i32 @callee(i32 %a)
  %e = call i32 @ext(i32 %r)
  call void @register(ptr @callee)
  %m = call i32 @llvm.smax.i32(i32 %e, i32 %r)
  %i = call i32 %fp(i32 %m)
  ret i32 %i
}
