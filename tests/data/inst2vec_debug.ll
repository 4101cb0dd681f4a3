; Hand-written fixture for inst2vec: debug info is not a statement, whether LLVM holds it as
; records (what the LLVM 19 parser makes of the dbg.value call) or as intrinsic calls.
target triple = "x86_64-pc-linux-gnu"

define i32 @twice(i32 %x) !dbg !4 {
entry:
  call void @llvm.dbg.value(metadata i32 %x, metadata !8, metadata !DIExpression()), !dbg !10
  %y = shl i32 %x, 1, !dbg !10
  br label %done, !dbg !10

done:
  call void @llvm.dbg.value(metadata i32 %y, metadata !8, metadata !DIExpression()), !dbg !10
  ret i32 %y, !dbg !10
}

declare void @llvm.dbg.value(metadata, metadata, metadata)

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3}

!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, emissionKind: FullDebug)
!1 = !DIFile(filename: "twice.c", directory: "/")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = distinct !DISubprogram(name: "twice", scope: !1, file: !1, line: 1, type: !5, unit: !0, spFlags: DISPFlagDefinition)
!5 = !DISubroutineType(types: !6)
!6 = !{!7, !7}
!7 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!8 = !DILocalVariable(name: "x", arg: 1, scope: !4, file: !1, line: 1, type: !7)
!10 = !DILocation(line: 1, scope: !4)
