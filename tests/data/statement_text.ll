; Hand-written fixture for observations/statement_text.cc: syntax that the built-in programs
; rarely or never produce, written both by the direct writer (most of it) and by LLVM's printer
; (the forms the writer hands over: atomics, inline asm, operand bundles, exception handling,
; sections, comdats, thread-locals, block addresses).
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

$grp = comdat any

%struct.S = type { i32, %struct.T, [2 x i8] }
%struct.T = type <{ i16, ptr }>
%"class.odd name" = type { double }
%0 = type { i64 }

@str = private unnamed_addr constant [3 x i8] c"a\22\00", align 1
@"quoted \22name" = internal global i32 -5
@1 = global i8 1
@packed = global %struct.T <{ i16 7, ptr @str }>, align 1
@nested = dso_local global %struct.S { i32 1, %struct.T <{ i16 2, ptr null }>, [2 x i8] zeroinitializer }
@floats = hidden constant [3 x double] [double 1.5, double 0x7FF8000000000000, double -0.0]
@halfs = protected global <2 x half> <half 0xH3C00, half 0xH0000>
@ints = local_unnamed_addr global [3 x i64] [i64 -1, i64 9223372036854775807, i64 0]
@wide = weak global i128 170141183460469231731687303715884105727
@ld = linkonce_odr global x86_fp80 0xK3FFF8000000000000000
@expr = global ptr getelementptr inbounds nuw ([3 x i8], ptr @str, i64 0, i64 1)
@cast = global i64 ptrtoint (ptr @1 to i64)
@sum = global i64 add (i64 ptrtoint (ptr @1 to i64), i64 8)
@range = global ptr getelementptr inrange(-8, 8) (i8, ptr @str, i64 1)
@odd = common global %"class.odd name" zeroinitializer, align 8
@unnamed = global %0 { i64 3 }
@u = global i32 undef
@p = global i32 poison
@arr = appending global [1 x ptr] [ptr @f]
@ba = global ptr blockaddress(@f, %exit)
@sect = global i32 0, section ".mydata"
@cd = global i32 0, comdat($grp)
@tls = thread_local global i32 0
@ext = extern_weak global i32

declare i32 @printf(ptr, ...)
declare void @take(ptr byval(%struct.S) align 8, ptr sret(%struct.T), i32 signext, ptr nonnull dereferenceable(16))
declare noundef zeroext i8 @ret_attrs(i32)
declare double @llvm.sqrt.f64(double)
declare void @llvm.va_start.p0(ptr)
declare float @llvm.experimental.constrained.fadd.f32(float, float, metadata, metadata)
declare i32 @__gxx_personality_v0(...)

define i32 @f(i32 %"arg one", ptr %q, <4 x i32> %v, double %d, ...) personality ptr @__gxx_personality_v0 {
entry:
  %struct.S = alloca %struct.S, align 8
  %n = alloca i32, i64 4, align 16
  %m = alloca i8, i32 3, align 1
  %as = alloca i32, align 4, addrspace(5)
  %va = alloca ptr, align 8
  call void @llvm.va_start.p0(ptr %va)
  %x = va_arg ptr %va, i32
  %a = add nuw nsw i32 %"arg one", 1
  %s = sub nsw i32 %a, -2147483648
  %sh = shl nuw i32 %s, 3
  %dv = sdiv exact i32 %sh, 8
  %ls = lshr exact i32 %dv, 1
  %o = or disjoint i32 %ls, 16
  %t = trunc nuw nsw i32 %o to i8
  %z = zext nneg i8 %t to i64
  %u2f = uitofp nneg i64 %z to double
  %fa = fadd fast double %u2f, 1.000000e+00
  %fm = fmul nnan ninf nsz double %fa, %d
  %fn = fneg arcp double %fm
  %fc = fcmp olt double %fn, 0x3FB999999999999A
  %sel = select nnan i1 %fc, double %fn, double %d
  %sq = call fast double @llvm.sqrt.f64(double %sel)
  %cmp = icmp ugt i64 %z, 100
  %vec = add <4 x i32> %v, <i32 1, i32 2, i32 3, i32 4>
  %vs = mul <4 x i32> %vec, splat (i32 3)
  %vz = and <4 x i32> %vec, zeroinitializer
  %el = extractelement <4 x i32> %vs, i64 2
  %ins = insertelement <4 x i32> %vz, i32 %el, i32 0
  %shuf = shufflevector <4 x i32> %ins, <4 x i32> poison, <4 x i32> zeroinitializer
  %shuf2 = shufflevector <4 x i32> %ins, <4 x i32> %vs, <2 x i32> <i32 5, i32 poison>
  %agg = insertvalue { i32, { i8, float } } undef, i32 %el, 0
  %agg2 = insertvalue { i32, { i8, float } } %agg, i8 %t, 1, 0
  %ev = extractvalue { i32, { i8, float } } %agg2, 1, 1
  %g = getelementptr inbounds %struct.S, ptr %struct.S, i64 0, i32 1, i32 1
  %g2 = getelementptr nusw i8, ptr %q, i64 %z
  %g3 = getelementptr i8, ptr %q
  %vg = getelementptr i32, ptr %q, <4 x i64> <i64 0, i64 1, i64 2, i64 3>
  %lv = load volatile i32, ptr %q, align 4, !tbaa !0
  store volatile i32 %lv, ptr @"quoted \22name", align 4
  %la = load atomic i32, ptr %q seq_cst, align 4
  store atomic i32 %la, ptr %q release, align 4
  %cx = cmpxchg weak ptr %q, i32 0, i32 1 acq_rel monotonic, align 4
  %rmw = atomicrmw add ptr %q, i32 1 monotonic, align 4
  fence syncscope("singlethread") acquire
  %fr = freeze i32 %la
  %call = tail call i32 (ptr, ...) @printf(ptr noundef @str, i32 %fr, double %sq)
  %nc = notail call zeroext i8 @ret_attrs(i32 signext %fr)
  call void @take(ptr byval(%struct.S) align 8 %struct.S, ptr sret(%struct.T) @packed, i32 signext 0, ptr nonnull dereferenceable(16) @nested) #0
  %fcc = call fastcc i32 @g(i32 1)
  %asm = call i32 asm sideeffect "mov $0, $1", "=r,r"(i32 %fr)
  %bun = call i32 @g(i32 2) [ "deopt"(i32 0) ]
  %cf = call float @llvm.experimental.constrained.fadd.f32(float 1.0, float 2.0, metadata !"round.dynamic", metadata !"fpexcept.strict")
  %pc = ptrtoint ptr getelementptr ([3 x i8], ptr @str, i64 0, i64 2) to i64
  %bc = bitcast <4 x i32> %vs to <2 x i64>
  %wide.in = zext i64 %pc to i128
  %big = add i128 %wide.in, 170141183460469231731687303715884105727
  switch i32 %fr, label %exit [
    i32 0, label %one
    i32 -7, label %two
  ]

one:
  %inv = invoke i32 @g(i32 3) to label %two unwind label %lpad

lpad:
  %lp = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %lp

two:
  %ph = phi i32 [ 0, %entry ], [ %inv, %one ]
  %cond = icmp eq i32 %ph, 0
  br i1 %cond, label %exit, label %"odd block"

"odd block":
  indirectbr ptr blockaddress(@f, %exit), [label %exit]

exit:
  %r = phi i32 [ %fr, %entry ], [ %ph, %two ], [ 1, %"odd block" ]
  unreachable
}

define fastcc i32 @g(i32 %0) #0 {
  %2 = add i32 %0, 1
  %3 = musttail call fastcc i32 @g(i32 %2)
  ret i32 %3
}

define void @h() {
  ret void
}

attributes #0 = { nounwind }

!0 = !{!1, !1, i64 0}
!1 = !{!"int", !2, i64 0}
!2 = !{!"root"}
