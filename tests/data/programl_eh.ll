; Hand-written ProGraML fixture: an unnamed struct type (printed as %0), a constant expression,
; an invoke of a defined function and a resume, which is an exit like ret. Expected values are
; derived in observations/programl_test.cc.
target triple = "x86_64-pc-linux-gnu"

%0 = type { i32, i64 }

@table = global [2 x i32] [i32 1, i32 2]
@pair = global %0 zeroinitializer

declare i32 @__gxx_personality_v0(...)

define void @thrower(ptr %p) {
entry:
  store i32 7, ptr %p
  ret void
}

define %0 @misc(ptr %p) personality ptr @__gxx_personality_v0 {
entry:
  %v = load %0, ptr @pair
  %e = getelementptr inbounds [2 x i32], ptr @table, i64 0, i64 1
  invoke void @thrower(ptr %e) to label %ok unwind label %lp
ok:
  %w = load i32, ptr getelementptr inbounds ([2 x i32], ptr @table, i64 0, i64 1)
  ret %0 %v
lp:
  %x = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %x
}
