; Inline assembly that jumps to a temporary label nobody defines. The IR is valid; only the
; assembler notices, and LLVM's default handler for that error exits the process.
define i32 @main() {
entry:
  call void asm sideeffect "jmp .Lcompiler_gym_nowhere", ""()
  ret i32 0
}
