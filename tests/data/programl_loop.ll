; Hand-written ProGraML fixture: a counted loop (phis, a conditional branch, a back edge) and a
; switch whose two cases go to one block. Expected values are derived in programl_test.cc.
target triple = "x86_64-pc-linux-gnu"

define i32 @sum(i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %next, %body ]
  %acc = phi i32 [ 0, %entry ], [ %acc.next, %body ]
  %done = icmp sge i32 %i, %n
  br i1 %done, label %exit, label %body
body:
  %acc.next = add i32 %acc, %i
  %next = add i32 %i, 1
  br label %loop
exit:
  switch i32 %acc, label %out [ i32 0, label %zero
                                i32 1, label %zero ]
zero:
  br label %out
out:
  %r = phi i32 [ %acc, %exit ], [ 0, %zero ]
  ret i32 %r
}
