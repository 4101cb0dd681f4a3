; LLVM 19 miscompile found by python -m compiler_gym.bin.miscompile (2026-11-28, csmith-v0 seed
; 9000010), reduced with llvm-reduce-19. At -O0 the program prints "checksum = 0" and runs clean
; under ASan+UBSan and MSan; after this pipeline it dies of a segmentation fault:
;   opt-19 -passes='function(loop-mssa(loop-rotate)),function(early-cse<memssa>),function(break-crit-edges),iroutliner' iroutliner_miscompile_2.ll -o out.bc
;   clang-19 out.bc && ./a.out
; The same pipeline without iroutliner keeps the output.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@.str.222 = private unnamed_addr constant [15 x i8] c"checksum = %X\0A\00", align 1

; Function Attrs: nounwind uwtable
define dso_local i32 @main() #0 {
  br label %3

1:                                                ; No predecessors!
  br label %2

2:                                                ; preds = %1
  br label %3

3:                                                ; preds = %2, %0
  %4 = call zeroext i16 @func_1()
  br label %5

5:                                                ; preds = %9, %3
  br label %10

6:                                                ; No predecessors!
  br label %7

7:                                                ; preds = %6
  br label %8

8:                                                ; preds = %7
  br label %9

9:                                                ; preds = %8
  br label %5, !llvm.loop !0

10:                                               ; preds = %5
  br label %11

11:                                               ; preds = %15, %10
  br label %16

12:                                               ; No predecessors!
  br label %13

13:                                               ; preds = %12
  br label %14

14:                                               ; preds = %13
  br label %15

15:                                               ; preds = %14
  br label %11, !llvm.loop !3

16:                                               ; preds = %11
  br label %17

17:                                               ; preds = %21, %16
  br label %22

18:                                               ; No predecessors!
  br label %19

19:                                               ; preds = %18
  br label %20

20:                                               ; preds = %19
  br label %21

21:                                               ; preds = %20
  br label %17, !llvm.loop !4

22:                                               ; preds = %17
  br label %23

23:                                               ; preds = %27, %22
  br label %28

24:                                               ; No predecessors!
  br label %25

25:                                               ; preds = %24
  br label %26

26:                                               ; preds = %25
  br label %27

27:                                               ; preds = %26
  br label %23, !llvm.loop !5

28:                                               ; preds = %23
  br label %29

29:                                               ; preds = %41, %28
  br label %42

30:                                               ; No predecessors!
  br label %31

31:                                               ; preds = %39, %30
  br label %40

32:                                               ; No predecessors!
  br label %33

33:                                               ; preds = %37, %32
  br label %38

34:                                               ; No predecessors!
  br label %35

35:                                               ; preds = %34
  br label %36

36:                                               ; preds = %35
  br label %37

37:                                               ; preds = %36
  br label %33, !llvm.loop !6

38:                                               ; preds = %33
  br label %39

39:                                               ; preds = %38
  br label %31, !llvm.loop !7

40:                                               ; preds = %31
  br label %41

41:                                               ; preds = %40
  br label %29, !llvm.loop !8

42:                                               ; preds = %29
  br label %43

43:                                               ; preds = %51, %42
  br label %52

44:                                               ; No predecessors!
  br label %45

45:                                               ; preds = %49, %44
  br label %50

46:                                               ; No predecessors!
  br label %47

47:                                               ; preds = %46
  br label %48

48:                                               ; preds = %47
  br label %49

49:                                               ; preds = %48
  br label %45, !llvm.loop !9

50:                                               ; preds = %45
  br label %51

51:                                               ; preds = %50
  br label %43, !llvm.loop !10

52:                                               ; preds = %43
  br label %53

53:                                               ; preds = %65, %52
  br label %66

54:                                               ; No predecessors!
  br label %55

55:                                               ; preds = %63, %54
  br label %64

56:                                               ; No predecessors!
  br label %57

57:                                               ; preds = %61, %56
  br label %62

58:                                               ; No predecessors!
  br label %59

59:                                               ; preds = %58
  br label %60

60:                                               ; preds = %59
  br label %61

61:                                               ; preds = %60
  br label %57, !llvm.loop !11

62:                                               ; preds = %57
  br label %63

63:                                               ; preds = %62
  br label %55, !llvm.loop !12

64:                                               ; preds = %55
  br label %65

65:                                               ; preds = %64
  br label %53, !llvm.loop !13

66:                                               ; preds = %53
  br label %67

67:                                               ; preds = %71, %66
  br label %72

68:                                               ; No predecessors!
  br label %69

69:                                               ; preds = %68
  br label %70

70:                                               ; preds = %69
  br label %71

71:                                               ; preds = %70
  br label %67, !llvm.loop !14

72:                                               ; preds = %67
  br label %73

73:                                               ; preds = %77, %72
  br label %78

74:                                               ; No predecessors!
  br label %75

75:                                               ; preds = %74
  br label %76

76:                                               ; preds = %75
  br label %77

77:                                               ; preds = %76
  br label %73, !llvm.loop !15

78:                                               ; preds = %73
  call void @platform_main_end()
  ret i32 0
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: nounwind uwtable
define internal void @crc32_gentab() #0 {
  br label %1

1:                                                ; preds = %11, %0
  %2 = icmp slt i32 0, 256
  br i1 %2, label %3, label %12

3:                                                ; preds = %1
  %4 = load i32, ptr null, align 4, !tbaa !16
  store i32 %4, ptr null, align 4, !tbaa !16
  br label %5

5:                                                ; preds = %9, %3
  br label %10

6:                                                ; No predecessors!
  br label %8

7:                                                ; No predecessors!
  br label %8

8:                                                ; preds = %7, %6
  br label %9

9:                                                ; preds = %8
  br label %5, !llvm.loop !20

10:                                               ; preds = %5
  br label %11

11:                                               ; preds = %10
  br label %1, !llvm.loop !21

12:                                               ; preds = %1
  ret void
}

; Function Attrs: nounwind uwtable
define internal zeroext i16 @func_1() #0 {
  br label %1

1:                                                ; preds = %3, %0
  br label %4

2:                                                ; No predecessors!
  br label %3

3:                                                ; preds = %2
  br label %1, !llvm.loop !22

4:                                                ; preds = %1
  br label %5

5:                                                ; preds = %4
  %6 = call i64 @func_12()
  br label %7

7:                                                ; preds = %5
  br label %8

8:                                                ; preds = %7
  ret i16 0
}

declare i32 @printf(ptr noundef, ...) #2

; Function Attrs: nounwind uwtable
define internal void @platform_main_end() #0 {
  %1 = call i32 (ptr, ...) @printf(ptr noundef @.str.222, i32 noundef 0)
  ret void
}

; Function Attrs: nounwind uwtable
define internal i64 @func_12() #0 {
  br label %1

1:                                                ; preds = %0
  br label %2

2:                                                ; preds = %4, %1
  br label %5

3:                                                ; No predecessors!
  br label %4

4:                                                ; preds = %3
  store i32 0, ptr null, align 4, !tbaa !16
  br label %2, !llvm.loop !23

5:                                                ; preds = %2
  br label %6

6:                                                ; preds = %8, %5
  br i1 false, label %7, label %9

7:                                                ; preds = %6
  store ptr null, ptr null, align 8, !tbaa !24
  br label %8

8:                                                ; preds = %7
  br label %6, !llvm.loop !26

9:                                                ; preds = %6
  br label %10

10:                                               ; preds = %9
  br label %11

11:                                               ; preds = %10
  br label %29

12:                                               ; No predecessors!
  br label %13

13:                                               ; preds = %27, %12
  br label %14

14:                                               ; preds = %13
  br label %25

15:                                               ; No predecessors!
  br label %16

16:                                               ; preds = %15
  br label %17

17:                                               ; preds = %23, %16
  br label %18

18:                                               ; preds = %17
  br label %19

19:                                               ; preds = %21, %18
  br label %20

20:                                               ; preds = %19
  br label %21

21:                                               ; preds = %20
  br label %19, !llvm.loop !27

22:                                               ; No predecessors!
  br label %23

23:                                               ; preds = %22
  br label %17, !llvm.loop !28

24:                                               ; No predecessors!
  br label %25

25:                                               ; preds = %24, %14
  switch i32 0, label %33 [
    i32 0, label %26
    i32 8, label %28
  ]

26:                                               ; preds = %25
  br label %27

27:                                               ; preds = %26
  br label %13, !llvm.loop !29

28:                                               ; preds = %25
  br label %29

29:                                               ; preds = %28, %11
  br label %32

30:                                               ; No predecessors!
  br label %31

31:                                               ; preds = %30
  br label %32

32:                                               ; preds = %31, %29
  ret i64 0

33:                                               ; preds = %25
  unreachable
}

; Function Attrs: nounwind uwtable
define internal i64 @safe_add_func_int64_t_s_s() #0 {
  br label %2

1:                                                ; No predecessors!
  br i1 false, label %5, label %2

2:                                                ; preds = %1, %0
  %3 = load i64, ptr null, align 8, !tbaa !30
  %4 = icmp slt i64 %3, 0
  br label %5

5:                                                ; preds = %2, %1
  br label %7

6:                                                ; No predecessors!
  br label %7

7:                                                ; preds = %6, %5
  ret i64 0
}

; Function Attrs: nounwind uwtable
define internal ptr @func_36() #0 {
  br label %1

1:                                                ; preds = %3, %0
  br label %4

2:                                                ; No predecessors!
  br label %3

3:                                                ; preds = %2
  br label %1, !llvm.loop !32

4:                                                ; preds = %1
  br label %5

5:                                                ; preds = %7, %4
  br label %8

6:                                                ; No predecessors!
  br label %7

7:                                                ; preds = %6
  br label %5, !llvm.loop !33

8:                                                ; preds = %5
  br label %9

9:                                                ; preds = %172, %8
  br label %10

10:                                               ; preds = %174, %9
  br i1 false, label %11, label %175

11:                                               ; preds = %10
  br label %12

12:                                               ; preds = %14, %11
  br label %15

13:                                               ; No predecessors!
  br label %14

14:                                               ; preds = %13
  br label %12, !llvm.loop !34

15:                                               ; preds = %12
  br label %16

16:                                               ; preds = %66, %15
  br i1 false, label %17, label %67

17:                                               ; preds = %16
  call void @llvm.lifetime.start.p0(i64 0, ptr null) #3
  br label %18

18:                                               ; preds = %28, %17
  br label %29

19:                                               ; No predecessors!
  br label %20

20:                                               ; preds = %26, %19
  br label %27

21:                                               ; No predecessors!
  br label %22

22:                                               ; preds = %24, %21
  br label %25

23:                                               ; No predecessors!
  br label %24

24:                                               ; preds = %23
  br label %22, !llvm.loop !35

25:                                               ; preds = %22
  br label %26

26:                                               ; preds = %25
  br label %20, !llvm.loop !36

27:                                               ; preds = %20
  br label %28

28:                                               ; preds = %27
  br label %18, !llvm.loop !37

29:                                               ; preds = %18
  br label %31

30:                                               ; No predecessors!
  br label %31

31:                                               ; preds = %30, %29
  br label %33

32:                                               ; No predecessors!
  br label %33

33:                                               ; preds = %32, %31
  br label %34

34:                                               ; preds = %62, %33
  br i1 false, label %35, label %63

35:                                               ; preds = %34
  call void @llvm.lifetime.start.p0(i64 0, ptr null) #3
  br label %36

36:                                               ; preds = %35
  br label %37

37:                                               ; preds = %39, %36
  br label %40

38:                                               ; No predecessors!
  br label %39

39:                                               ; preds = %38
  br label %37, !llvm.loop !38

40:                                               ; preds = %37
  br label %41

41:                                               ; preds = %40
  br label %43

42:                                               ; No predecessors!
  br label %44

43:                                               ; preds = %41
  br label %44

44:                                               ; preds = %43, %42
  switch i32 0, label %60 [
    i32 0, label %45
  ]

45:                                               ; preds = %44
  br label %59

46:                                               ; No predecessors!
  br label %47

47:                                               ; preds = %53, %46
  br label %48

48:                                               ; preds = %47
  br label %50

49:                                               ; No predecessors!
  br label %50

50:                                               ; preds = %49, %48
  br label %52

51:                                               ; No predecessors!
  br label %52

52:                                               ; preds = %51, %50
  br label %53

53:                                               ; preds = %52
  br label %47, !llvm.loop !39

54:                                               ; No predecessors!
  br label %55

55:                                               ; preds = %57, %54
  br label %56

56:                                               ; preds = %55
  br label %57

57:                                               ; preds = %56
  br label %55, !llvm.loop !40

58:                                               ; No predecessors!
  br label %59

59:                                               ; preds = %58, %45
  br label %60

60:                                               ; preds = %59, %44
  switch i32 0, label %64 [
    i32 0, label %61
  ]

61:                                               ; preds = %60
  br label %62

62:                                               ; preds = %61
  br label %34, !llvm.loop !41

63:                                               ; preds = %34
  br label %64

64:                                               ; preds = %63, %60
  switch i32 0, label %172 [
    i32 0, label %65
  ]

65:                                               ; preds = %64
  br label %66

66:                                               ; preds = %65
  br label %16, !llvm.loop !42

67:                                               ; preds = %16
  br label %68

68:                                               ; preds = %67
  br label %69

69:                                               ; preds = %71, %68
  br label %72

70:                                               ; No predecessors!
  br label %71

71:                                               ; preds = %70
  br label %69, !llvm.loop !43

72:                                               ; preds = %69
  br label %74

73:                                               ; No predecessors!
  br label %74

74:                                               ; preds = %73, %72
  br label %78

75:                                               ; No predecessors!
  br label %76

76:                                               ; preds = %75
  br label %77

77:                                               ; preds = %76
  br label %78

78:                                               ; preds = %77, %74
  br label %79

79:                                               ; preds = %78
  br label %80

80:                                               ; preds = %82, %79
  br label %83

81:                                               ; No predecessors!
  br label %82

82:                                               ; preds = %81
  br label %80, !llvm.loop !44

83:                                               ; preds = %80
  br label %84

84:                                               ; preds = %99, %83
  br i1 false, label %85, label %100

85:                                               ; preds = %84
  call void @llvm.lifetime.start.p0(i64 0, ptr null) #3
  br label %86

86:                                               ; preds = %88, %85
  br label %89

87:                                               ; No predecessors!
  br label %88

88:                                               ; preds = %87
  br label %86, !llvm.loop !45

89:                                               ; preds = %86
  br label %90

90:                                               ; preds = %92, %89
  br label %93

91:                                               ; No predecessors!
  br label %92

92:                                               ; preds = %91
  br label %90, !llvm.loop !46

93:                                               ; preds = %90
  br label %94

94:                                               ; preds = %93
  br label %97

95:                                               ; No predecessors!
  br label %96

96:                                               ; preds = %95
  br label %97

97:                                               ; preds = %96, %94
  switch i32 0, label %121 [
    i32 0, label %98
  ]

98:                                               ; preds = %97
  br label %99

99:                                               ; preds = %98
  br label %84, !llvm.loop !47

100:                                              ; preds = %84
  store i32 0, ptr null, align 4, !tbaa !16
  br label %101

101:                                              ; preds = %116, %100
  br i1 false, label %102, label %117

102:                                              ; preds = %101
  call void @llvm.lifetime.start.p0(i64 0, ptr null) #3
  br label %103

103:                                              ; preds = %102
  br label %104

104:                                              ; preds = %103
  br label %106

105:                                              ; No predecessors!
  br label %106

106:                                              ; preds = %105, %104
  br label %107

107:                                              ; preds = %114, %106
  br label %108

108:                                              ; preds = %107
  br label %112

109:                                              ; No predecessors!
  br label %112

110:                                              ; No predecessors!
  br label %112

111:                                              ; No predecessors!
  br label %112

112:                                              ; preds = %111, %110, %109, %108
  switch i32 0, label %177 [
    i32 0, label %113
    i32 57, label %115
    i32 59, label %114
  ]

113:                                              ; preds = %112
  br label %114

114:                                              ; preds = %113, %112
  br label %107, !llvm.loop !48

115:                                              ; preds = %112
  br label %116

116:                                              ; preds = %115
  br label %101, !llvm.loop !49

117:                                              ; preds = %101
  br label %118

118:                                              ; preds = %117
  br label %121

119:                                              ; No predecessors!
  br label %121

120:                                              ; No predecessors!
  br label %121

121:                                              ; preds = %120, %119, %118, %97
  switch i32 0, label %168 [
    i32 0, label %122
  ]

122:                                              ; preds = %121
  br label %165

123:                                              ; No predecessors!
  br label %124

124:                                              ; preds = %133, %123
  br label %126

125:                                              ; No predecessors!
  br label %126

126:                                              ; preds = %125, %124
  br label %127

127:                                              ; preds = %129, %126
  br label %128

128:                                              ; preds = %127
  br label %131

129:                                              ; No predecessors!
  br label %127, !llvm.loop !50

130:                                              ; No predecessors!
  br label %131

131:                                              ; preds = %130, %128
  switch i32 0, label %163 [
    i32 0, label %132
  ]

132:                                              ; preds = %131
  br label %133

133:                                              ; preds = %132
  br label %124, !llvm.loop !51

134:                                              ; No predecessors!
  br label %135

135:                                              ; preds = %149, %134
  br label %137

136:                                              ; No predecessors!
  br label %137

137:                                              ; preds = %136, %135
  br label %138

138:                                              ; preds = %137
  br label %147

139:                                              ; No predecessors!
  br label %140

140:                                              ; preds = %145, %139
  br label %141

141:                                              ; preds = %140
  br label %143

142:                                              ; No predecessors!
  br label %143

143:                                              ; preds = %142, %141
  switch i32 0, label %177 [
    i32 0, label %144
    i32 69, label %146
  ]

144:                                              ; preds = %143
  br label %145

145:                                              ; preds = %144
  br label %140, !llvm.loop !52

146:                                              ; preds = %143
  br label %147

147:                                              ; preds = %146, %138
  switch i32 0, label %177 [
    i32 0, label %148
    i32 68, label %149
  ]

148:                                              ; preds = %147
  br label %149

149:                                              ; preds = %148, %147
  br label %135, !llvm.loop !53

150:                                              ; No predecessors!
  br label %151

151:                                              ; preds = %153, %150
  br label %152

152:                                              ; preds = %151
  br label %153

153:                                              ; preds = %152
  br label %151, !llvm.loop !54

154:                                              ; No predecessors!
  br label %155

155:                                              ; preds = %161, %154
  br label %156

156:                                              ; preds = %155
  br label %159

157:                                              ; No predecessors!
  br label %159

158:                                              ; No predecessors!
  br label %159

159:                                              ; preds = %158, %157, %156
  switch i32 0, label %177 [
    i32 0, label %160
    i32 75, label %162
  ]

160:                                              ; preds = %159
  br label %161

161:                                              ; preds = %160
  br label %155, !llvm.loop !55

162:                                              ; preds = %159
  br label %163

163:                                              ; preds = %162, %131
  switch i32 0, label %168 [
    i32 0, label %164
  ]

164:                                              ; preds = %163
  br label %165

165:                                              ; preds = %164, %122
  br label %166

166:                                              ; preds = %165
  br label %168

167:                                              ; No predecessors!
  br label %168

168:                                              ; preds = %167, %166, %163, %121
  switch i32 0, label %172 [
    i32 0, label %169
  ]

169:                                              ; preds = %168
  br label %171

170:                                              ; No predecessors!
  br label %171

171:                                              ; preds = %170, %169
  br label %172

172:                                              ; preds = %171, %168, %64
  switch i32 0, label %176 [
    i32 0, label %173
    i32 8, label %9
    i32 11, label %174
  ]

173:                                              ; preds = %172
  br label %174

174:                                              ; preds = %173, %172
  br label %10, !llvm.loop !56

175:                                              ; preds = %10
  br label %176

176:                                              ; preds = %175, %172
  ret ptr null

177:                                              ; preds = %159, %147, %143, %112
  unreachable
}

attributes #0 = { nounwind uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { nounwind }

!0 = distinct !{!0, !1, !2}
!1 = !{!"llvm.loop.mustprogress"}
!2 = !{!"llvm.loop.unroll.disable"}
!3 = distinct !{!3, !1, !2}
!4 = distinct !{!4, !1, !2}
!5 = distinct !{!5, !1, !2}
!6 = distinct !{!6, !1, !2}
!7 = distinct !{!7, !1, !2}
!8 = distinct !{!8, !1, !2}
!9 = distinct !{!9, !1, !2}
!10 = distinct !{!10, !1, !2}
!11 = distinct !{!11, !1, !2}
!12 = distinct !{!12, !1, !2}
!13 = distinct !{!13, !1, !2}
!14 = distinct !{!14, !1, !2}
!15 = distinct !{!15, !1, !2}
!16 = !{!17, !17, i64 0}
!17 = !{!"int", !18, i64 0}
!18 = !{!"omnipotent char", !19, i64 0}
!19 = !{!"Simple C/C++ TBAA"}
!20 = distinct !{!20, !1, !2}
!21 = distinct !{!21, !1, !2}
!22 = distinct !{!22, !1, !2}
!23 = distinct !{!23, !1, !2}
!24 = !{!25, !25, i64 0}
!25 = !{!"any pointer", !18, i64 0}
!26 = distinct !{!26, !1, !2}
!27 = distinct !{!27, !1, !2}
!28 = distinct !{!28, !1, !2}
!29 = distinct !{!29, !1, !2}
!30 = !{!31, !31, i64 0}
!31 = !{!"long", !18, i64 0}
!32 = distinct !{!32, !1, !2}
!33 = distinct !{!33, !1, !2}
!34 = distinct !{!34, !1, !2}
!35 = distinct !{!35, !1, !2}
!36 = distinct !{!36, !1, !2}
!37 = distinct !{!37, !1, !2}
!38 = distinct !{!38, !1, !2}
!39 = distinct !{!39, !1, !2}
!40 = distinct !{!40, !1, !2}
!41 = distinct !{!41, !1, !2}
!42 = distinct !{!42, !1, !2}
!43 = distinct !{!43, !1, !2}
!44 = distinct !{!44, !1, !2}
!45 = distinct !{!45, !1, !2}
!46 = distinct !{!46, !1, !2}
!47 = distinct !{!47, !1, !2}
!48 = distinct !{!48, !1, !2}
!49 = distinct !{!49, !1, !2}
!50 = distinct !{!50, !1, !2}
!51 = distinct !{!51, !1, !2}
!52 = distinct !{!52, !1, !2}
!53 = distinct !{!53, !1, !2}
!54 = distinct !{!54, !1, !2}
!55 = distinct !{!55, !1, !2}
!56 = distinct !{!56, !1, !2}
