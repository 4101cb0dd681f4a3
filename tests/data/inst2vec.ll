; Hand-written fixture for inst2vec. The expected statements and statement-graph edges are
; derived by hand in observations/inst2vec_test.cc. @ext and @printf are only declared, so they
; are not statements.
target triple = "x86_64-pc-linux-gnu"

%struct.pair = type { i32, %struct.inner }
%struct.inner = type { i8, [2 x float] }

@.str = private unnamed_addr constant [4 x i8] c"%d\0A\00", align 1
@count = global i32 7, align 4
@ext = external global i32

declare i32 @printf(ptr, ...)

define i32 @sum(ptr %p, i32 %n) {
entry:
  %last = getelementptr inbounds %struct.pair, ptr %p, i64 0, i32 1, i32 1, i64 1
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  %next = add nsw i32 %i, 1
  %done = icmp eq i32 %next, %n
  br i1 %done, label %exit, label %loop, !llvm.loop !0

exit:
  %c = load i32, ptr @count, align 4, !tbaa !1
  %r = add i32 %c, %next
  %call = call i32 (ptr, ...) @printf(ptr @.str, i32 %r) #0
  switch i32 %r, label %other [
    i32 -1, label %neg
  ]

neg:
  ret i32 -1

other:
  store float 0x3FB99999A0000000, ptr %last, align 4
  ret i32 %r
}

attributes #0 = { nounwind }

!0 = distinct !{!0}
!1 = !{!2, !2, i64 0}
!2 = !{!"int", !3, i64 0}
!3 = !{!"root"}
