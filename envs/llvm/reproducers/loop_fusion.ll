; LLVM 19 bug found by python -m compiler_gym.bin.miscompile (2026-11-27, csmith-v0 seed 2000049),
; reduced with llvm-reduce-19. The verifier refuses what loop-fusion makes of it:
;   opt-19 -passes='function(loop-mssa(licm)),function(mem2reg),function(loop-mssa(loop-rotate)),function(loop-fusion)' loop_fusion.ll
;   -> PHI node entries do not match predecessors!
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define i32 @func_14() {
  %1 = alloca i32, i32 0, align 4
  store i32 0, ptr %1, align 4
  br label %2

2:                                                ; preds = %5, %0
  %3 = load i32, ptr %1, align 4
  %4 = icmp slt i32 %3, 5
  br i1 %4, label %5, label %8

5:                                                ; preds = %2
  store i8 0, ptr null, align 1
  %6 = load i32, ptr %1, align 4
  %7 = add i32 %6, 1
  store i32 %7, ptr %1, align 4
  br label %2

8:                                                ; preds = %2
  store i32 0, ptr %1, align 4
  br label %9

9:                                                ; preds = %13, %8
  %10 = load i32, ptr %1, align 4
  %11 = icmp slt i32 %10, 5
  br i1 %11, label %12, label %16

12:                                               ; preds = %9
  br label %13

13:                                               ; preds = %12
  %14 = load i32, ptr %1, align 4
  %15 = add i32 %14, 1
  store i32 %15, ptr %1, align 4
  br label %9

16:                                               ; preds = %9
  ret i32 0
}
