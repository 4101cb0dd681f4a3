; Hand-written fixture for Autophase's CFG and phi features (expected values derived by hand in
; observations/autophase_test.cc).
target triple = "x86_64-pc-linux-gnu"

define i64 @f(i64 %x, i1 %c) {
entry:
  br i1 %c, label %a, label %join
a:
  %y = add i64 %x, 1
  br i1 %c, label %join, label %b
b:
  br label %join
join:
  %p1 = phi i64 [ 0, %entry ], [ %y, %a ], [ 5, %b ]
  %p2 = phi i64 [ 1, %entry ], [ 2, %a ], [ 3, %b ]
  %p3 = phi i64 [ %x, %entry ], [ %x, %a ], [ %x, %b ]
  %p4 = phi i64 [ %x, %entry ], [ %y, %a ], [ %x, %b ]
  %s = add i64 %p1, %p2
  ret i64 %s
}

define i32 @loop(i32 %n) {
entry:
  br label %head
head:
  %i = phi i32 [ 0, %entry ], [ %i2, %body ]
  %c = icmp slt i32 %i, %n
  br i1 %c, label %body, label %exit
body:
  %i2 = add i32 %i, 1
  br label %head
exit:
  ret i32 %i
}
