; LLVM 19 bug found by python -m compiler_gym.bin.miscompile (2026-11-27, csmith-v0 seed 2000007),
; reduced with llvm-reduce-19. The verifier refuses what iroutliner makes of it:
;   opt-19 -passes='function(early-cse<memssa>),function(jump-threading),function(dce),function(sroa),iroutliner' iroutliner.ll
;   -> Instruction does not dominate all uses!
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define i64 @func_1() {
  br label %1

1:                                                ; preds = %0
  br i1 true, label %2, label %3

2:                                                ; preds = %1
  br i1 false, label %9, label %15

3:                                                ; preds = %6, %1
  %4 = load i32, ptr null, align 4
  %5 = icmp ule i32 %4, 0
  br label %6

6:                                                ; preds = %3
  %7 = load i32, ptr null, align 4
  %8 = or i32 %7, 1
  store i32 %8, ptr null, align 4
  br label %3

9:                                                ; preds = %12, %2
  %10 = load i32, ptr null, align 4
  %11 = icmp sle i32 %10, 0
  br label %12

12:                                               ; preds = %9
  %13 = load i32, ptr null, align 4
  %14 = or i32 %13, 1
  store i32 %14, ptr null, align 4
  br label %9

15:                                               ; preds = %2
  ret i64 0
}
