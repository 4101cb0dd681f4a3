; Hand-written fixture for InstCount. Expected values are derived by hand in
; observations/instcount_test.cc. @ext is only declared, so it is not counted.
target triple = "x86_64-pc-linux-gnu"

declare i32 @ext(i32)

define i32 @add(i32 %a, i32 %b) {
entry:
  %s = add i32 %a, %b
  %c = icmp sgt i32 %s, 0
  br i1 %c, label %pos, label %neg
pos:
  %m = mul i32 %s, 2
  br label %exit
neg:
  %n = sub i32 0, %s
  br label %exit
exit:
  %r = phi i32 [ %m, %pos ], [ %n, %neg ]
  %call = call i32 @ext(i32 %r)
  ret i32 %call
}

define void @store(ptr %p) {
entry:
  %x = alloca i32
  store i32 1, ptr %x
  %v = load i32, ptr %x
  store i32 %v, ptr %p
  ret void
}
