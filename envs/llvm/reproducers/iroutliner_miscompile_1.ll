; LLVM 19 miscompile found by python -m compiler_gym.bin.miscompile (2026-11-28, csmith-v0 seed
; 9000097), reduced with llvm-reduce-19 (2026-12-02, from 14,987 lines and 75 functions). At -O0
; the program prints nothing and exits 0, and runs clean under ASan+UBSan and MSan; after this
; pipeline it dies of a segmentation fault:
;   opt-19 -passes='function(loop-mssa(loop-rotate)),function(dse),function(reg2mem),function(early-cse<memssa>),iroutliner' iroutliner_miscompile_1.ll -o out.bc
;   clang-19 out.bc && ./a.out
; The same pipeline without iroutliner keeps the behaviour.
; ModuleID = '<bc file>'
source_filename = "-"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nounwind uwtable
define dso_local i32 @main() #0 {
  br label %3

1:                                                ; No predecessors!
  br label %2

2:                                                ; preds = %1
  br label %3

3:                                                ; preds = %2, %0
  %4 = call signext i8 @func_1()
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

11:                                               ; preds = %23, %10
  br label %24

12:                                               ; No predecessors!
  br label %13

13:                                               ; preds = %21, %12
  br label %22

14:                                               ; No predecessors!
  br label %15

15:                                               ; preds = %19, %14
  br label %20

16:                                               ; No predecessors!
  br label %17

17:                                               ; preds = %16
  br label %18

18:                                               ; preds = %17
  br label %19

19:                                               ; preds = %18
  br label %15, !llvm.loop !3

20:                                               ; preds = %15
  br label %21

21:                                               ; preds = %20
  br label %13, !llvm.loop !4

22:                                               ; preds = %13
  br label %23

23:                                               ; preds = %22
  br label %11, !llvm.loop !5

24:                                               ; preds = %11
  br label %25

25:                                               ; preds = %29, %24
  br label %30

26:                                               ; No predecessors!
  br label %27

27:                                               ; preds = %26
  br label %28

28:                                               ; preds = %27
  br label %29

29:                                               ; preds = %28
  br label %25, !llvm.loop !6

30:                                               ; preds = %25
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
  br label %33, !llvm.loop !7

38:                                               ; preds = %33
  br label %39

39:                                               ; preds = %38
  br label %31, !llvm.loop !8

40:                                               ; preds = %31
  br label %41

41:                                               ; preds = %49, %40
  br label %50

42:                                               ; No predecessors!
  br label %43

43:                                               ; preds = %47, %42
  br label %48

44:                                               ; No predecessors!
  br label %45

45:                                               ; preds = %44
  br label %46

46:                                               ; preds = %45
  br label %47

47:                                               ; preds = %46
  br label %43, !llvm.loop !9

48:                                               ; preds = %43
  br label %49

49:                                               ; preds = %48
  br label %41, !llvm.loop !10

50:                                               ; preds = %41
  br label %51

51:                                               ; preds = %59, %50
  br label %60

52:                                               ; No predecessors!
  br label %53

53:                                               ; preds = %57, %52
  br label %58

54:                                               ; No predecessors!
  br label %55

55:                                               ; preds = %54
  br label %56

56:                                               ; preds = %55
  br label %57

57:                                               ; preds = %56
  br label %53, !llvm.loop !11

58:                                               ; preds = %53
  br label %59

59:                                               ; preds = %58
  br label %51, !llvm.loop !12

60:                                               ; preds = %51
  br label %61

61:                                               ; preds = %69, %60
  br label %70

62:                                               ; No predecessors!
  br label %63

63:                                               ; preds = %67, %62
  br label %68

64:                                               ; No predecessors!
  br label %65

65:                                               ; preds = %64
  br label %66

66:                                               ; preds = %65
  br label %67

67:                                               ; preds = %66
  br label %63, !llvm.loop !13

68:                                               ; preds = %63
  br label %69

69:                                               ; preds = %68
  br label %61, !llvm.loop !14

70:                                               ; preds = %61
  br label %71

71:                                               ; preds = %79, %70
  br label %80

72:                                               ; No predecessors!
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
  br label %79

79:                                               ; preds = %78
  br label %71, !llvm.loop !16

80:                                               ; preds = %71
  br label %81

81:                                               ; preds = %89, %80
  br label %90

82:                                               ; No predecessors!
  br label %83

83:                                               ; preds = %87, %82
  br label %88

84:                                               ; No predecessors!
  br label %85

85:                                               ; preds = %84
  br label %86

86:                                               ; preds = %85
  br label %87

87:                                               ; preds = %86
  br label %83, !llvm.loop !17

88:                                               ; preds = %83
  br label %89

89:                                               ; preds = %88
  br label %81, !llvm.loop !18

90:                                               ; preds = %81
  ret i32 0
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: nounwind uwtable
define internal signext i8 @func_1() #0 {
  br label %1

1:                                                ; preds = %3, %0
  br label %4

2:                                                ; No predecessors!
  br label %3

3:                                                ; preds = %2
  br label %1, !llvm.loop !19

4:                                                ; preds = %1
  br label %5

5:                                                ; preds = %7, %4
  br label %8

6:                                                ; No predecessors!
  br label %7

7:                                                ; preds = %6
  br label %5, !llvm.loop !20

8:                                                ; preds = %5
  br label %10

9:                                                ; No predecessors!
  br label %10

10:                                               ; preds = %9, %8
  br label %12

11:                                               ; No predecessors!
  br label %12

12:                                               ; preds = %11, %10
  %13 = call ptr @func_51()
  br label %14

14:                                               ; preds = %12
  br label %15

15:                                               ; preds = %17, %14
  br label %16

16:                                               ; preds = %15
  br label %19

17:                                               ; No predecessors!
  br label %15, !llvm.loop !21

18:                                               ; No predecessors!
  br label %19

19:                                               ; preds = %18, %16
  switch i32 0, label %42 [
    i32 0, label %20
  ]

20:                                               ; preds = %19
  br label %41

21:                                               ; No predecessors!
  br label %22

22:                                               ; preds = %39, %21
  br label %23

23:                                               ; preds = %22
  br label %37

24:                                               ; No predecessors!
  br label %25

25:                                               ; preds = %35, %24
  br label %26

26:                                               ; preds = %25
  br label %27

27:                                               ; preds = %29, %26
  br label %28

28:                                               ; preds = %27
  br label %29

29:                                               ; preds = %28
  br label %27, !llvm.loop !22

30:                                               ; No predecessors!
  br label %31

31:                                               ; preds = %33, %30
  br label %32

32:                                               ; preds = %31
  br label %33

33:                                               ; preds = %32
  br label %31, !llvm.loop !23

34:                                               ; No predecessors!
  br label %35

35:                                               ; preds = %34
  br label %25, !llvm.loop !24

36:                                               ; No predecessors!
  br label %37

37:                                               ; preds = %36, %23
  switch i32 0, label %43 [
    i32 0, label %38
    i32 11, label %40
  ]

38:                                               ; preds = %37
  br label %39

39:                                               ; preds = %38
  br label %22, !llvm.loop !25

40:                                               ; preds = %37
  br label %41

41:                                               ; preds = %40, %20
  br label %42

42:                                               ; preds = %41, %19
  ret i8 0

43:                                               ; preds = %37
  unreachable
}

; Function Attrs: nounwind uwtable
define internal ptr @func_51() #0 {
  %1 = call ptr @func_68()
  ret ptr null
}

; Function Attrs: nounwind uwtable
define internal ptr @func_68() #0 {
  %1 = alloca i8, i32 0, align 1
  %2 = alloca i32, i32 0, align 4
  br label %3

3:                                                ; preds = %5, %0
  br label %6

4:                                                ; No predecessors!
  br label %5

5:                                                ; preds = %4
  br label %3, !llvm.loop !26

6:                                                ; preds = %3
  br label %7

7:                                                ; preds = %9, %6
  br label %10

8:                                                ; No predecessors!
  br label %9

9:                                                ; preds = %8
  br label %7, !llvm.loop !27

10:                                               ; preds = %7
  br label %11

11:                                               ; preds = %13, %10
  br label %14

12:                                               ; No predecessors!
  br label %13

13:                                               ; preds = %12
  br label %11, !llvm.loop !28

14:                                               ; preds = %11
  br label %15

15:                                               ; preds = %21, %14
  br label %22

16:                                               ; No predecessors!
  br label %17

17:                                               ; preds = %19, %16
  br label %20

18:                                               ; No predecessors!
  br label %19

19:                                               ; preds = %18
  br label %17, !llvm.loop !29

20:                                               ; preds = %17
  br label %21

21:                                               ; preds = %20
  br label %15, !llvm.loop !30

22:                                               ; preds = %15
  br label %23

23:                                               ; preds = %157, %22
  br label %24

24:                                               ; preds = %23
  br label %25

25:                                               ; preds = %27, %24
  br label %28

26:                                               ; No predecessors!
  br label %27

27:                                               ; preds = %26
  br label %25, !llvm.loop !31

28:                                               ; preds = %25
  br label %29

29:                                               ; preds = %28
  %30 = call i8 @func_88()
  br label %31

31:                                               ; preds = %29
  br label %32

32:                                               ; preds = %31
  br label %159

33:                                               ; No predecessors!
  br label %34

34:                                               ; preds = %36, %33
  br label %35

35:                                               ; preds = %34
  br label %36

36:                                               ; preds = %35
  br label %34, !llvm.loop !32

37:                                               ; No predecessors!
  br label %38

38:                                               ; preds = %40, %37
  br label %39

39:                                               ; preds = %38
  br label %40

40:                                               ; preds = %39
  br label %38, !llvm.loop !33

41:                                               ; No predecessors!
  br label %42

42:                                               ; preds = %44, %41
  br label %43

43:                                               ; preds = %42
  br label %157

44:                                               ; No predecessors!
  br label %42, !llvm.loop !34

45:                                               ; No predecessors!
  br label %46

46:                                               ; preds = %51, %45
  br label %48

47:                                               ; No predecessors!
  br label %48

48:                                               ; preds = %47, %46
  br label %49

49:                                               ; preds = %48
  br label %50

50:                                               ; preds = %49
  br label %51

51:                                               ; preds = %50
  br label %46, !llvm.loop !35

52:                                               ; No predecessors!
  br label %53

53:                                               ; preds = %153, %52
  br label %54

54:                                               ; preds = %53
  br label %55

55:                                               ; preds = %54
  br label %56

56:                                               ; preds = %58, %55
  br label %57

57:                                               ; preds = %56
  br label %58

58:                                               ; preds = %57
  br label %56, !llvm.loop !36

59:                                               ; No predecessors!
  br label %61

60:                                               ; No predecessors!
  br label %61

61:                                               ; preds = %60, %59
  switch i32 0, label %157 [
    i32 0, label %62
  ]

62:                                               ; preds = %61
  br label %68

63:                                               ; No predecessors!
  br label %64

64:                                               ; preds = %63
  br label %65

65:                                               ; preds = %64
  br label %67

66:                                               ; No predecessors!
  br label %67

67:                                               ; preds = %66, %65
  br label %68

68:                                               ; preds = %67, %62
  br label %69

69:                                               ; preds = %155, %68
  br label %70

70:                                               ; preds = %69
  br label %71

71:                                               ; preds = %73, %70
  br label %72

72:                                               ; preds = %71
  br label %73

73:                                               ; preds = %72
  br label %71, !llvm.loop !37

74:                                               ; No predecessors!
  br label %153

75:                                               ; No predecessors!
  br label %76

76:                                               ; preds = %115, %75
  br label %77

77:                                               ; preds = %76
  br label %78

78:                                               ; preds = %96, %77
  br label %79

79:                                               ; preds = %78
  br label %80

80:                                               ; preds = %82, %79
  br label %81

81:                                               ; preds = %80
  br label %82

82:                                               ; preds = %81
  br label %80, !llvm.loop !38

83:                                               ; No predecessors!
  br label %84

84:                                               ; preds = %83
  br label %85

85:                                               ; preds = %84
  br label %87

86:                                               ; No predecessors!
  br label %87

87:                                               ; preds = %86, %85
  br label %89

88:                                               ; No predecessors!
  br label %89

89:                                               ; preds = %88, %87
  br label %90

90:                                               ; preds = %89
  br label %94

91:                                               ; No predecessors!
  br label %92

92:                                               ; preds = %91
  br label %93

93:                                               ; preds = %92
  br label %94

94:                                               ; preds = %93, %90
  switch i32 0, label %113 [
    i32 0, label %95
  ]

95:                                               ; preds = %94
  br label %96

96:                                               ; preds = %95
  br label %78, !llvm.loop !39

97:                                               ; No predecessors!
  br label %98

98:                                               ; preds = %111, %97
  br label %99

99:                                               ; preds = %98
  br label %109

100:                                              ; No predecessors!
  br label %101

101:                                              ; preds = %103, %100
  br label %102

102:                                              ; preds = %101
  br label %103

103:                                              ; preds = %102
  br label %101, !llvm.loop !40

104:                                              ; No predecessors!
  br label %106

105:                                              ; No predecessors!
  br label %106

106:                                              ; preds = %105, %104
  switch i32 0, label %109 [
    i32 0, label %107
  ]

107:                                              ; preds = %106
  br label %108

108:                                              ; preds = %107
  br label %109

109:                                              ; preds = %108, %106, %99
  switch i32 0, label %113 [
    i32 0, label %110
    i32 52, label %112
  ]

110:                                              ; preds = %109
  br label %111

111:                                              ; preds = %110
  br label %98, !llvm.loop !41

112:                                              ; preds = %109
  br label %113

113:                                              ; preds = %112, %109, %94
  switch i32 0, label %153 [
    i32 0, label %114
  ]

114:                                              ; preds = %113
  br label %115

115:                                              ; preds = %114
  br label %76, !llvm.loop !42

116:                                              ; No predecessors!
  br label %117

117:                                              ; preds = %116
  br label %118

118:                                              ; preds = %151, %117
  br label %119

119:                                              ; preds = %118
  br label %120

120:                                              ; preds = %122, %119
  br label %121

121:                                              ; preds = %120
  br label %149

122:                                              ; No predecessors!
  br label %120, !llvm.loop !43

123:                                              ; No predecessors!
  br label %124

124:                                              ; preds = %147, %123
  br label %125

125:                                              ; preds = %124
  br label %126

126:                                              ; preds = %136, %125
  br label %127

127:                                              ; preds = %126
  br label %128

128:                                              ; preds = %134, %127
  br label %129

129:                                              ; preds = %128
  br label %130

130:                                              ; preds = %132, %129
  br label %131

131:                                              ; preds = %130
  br label %132

132:                                              ; preds = %131
  br label %130, !llvm.loop !44

133:                                              ; No predecessors!
  br label %134

134:                                              ; preds = %133
  br label %128, !llvm.loop !45

135:                                              ; No predecessors!
  br label %136

136:                                              ; preds = %135
  br label %126, !llvm.loop !46

137:                                              ; No predecessors!
  br label %138

138:                                              ; preds = %140, %137
  br label %139

139:                                              ; preds = %138
  br label %140

140:                                              ; preds = %139
  br label %138, !llvm.loop !47

141:                                              ; No predecessors!
  br label %142

142:                                              ; preds = %145, %141
  br label %143

143:                                              ; preds = %142
  br label %144

144:                                              ; preds = %143
  br label %145

145:                                              ; preds = %144
  br label %142, !llvm.loop !48

146:                                              ; No predecessors!
  br label %147

147:                                              ; preds = %146
  br label %124, !llvm.loop !49

148:                                              ; No predecessors!
  br label %149

149:                                              ; preds = %148, %121
  switch i32 0, label %153 [
    i32 0, label %150
  ]

150:                                              ; preds = %149
  br label %151

151:                                              ; preds = %150
  br label %118, !llvm.loop !50

152:                                              ; No predecessors!
  br label %153

153:                                              ; preds = %152, %149, %113, %74
  switch i32 0, label %157 [
    i32 0, label %154
    i32 33, label %53
  ]

154:                                              ; preds = %153
  br label %155

155:                                              ; preds = %154
  br label %69, !llvm.loop !51

156:                                              ; No predecessors!
  br label %157

157:                                              ; preds = %156, %153, %61, %43
  switch i32 0, label %197 [
    i32 0, label %158
    i32 17, label %23
  ]

158:                                              ; preds = %157
  br label %159

159:                                              ; preds = %158, %32
  br label %160

160:                                              ; preds = %159
  br label %161

161:                                              ; preds = %178, %160
  br label %179

162:                                              ; No predecessors!
  br label %163

163:                                              ; preds = %174, %162
  br label %164

164:                                              ; preds = %163
  br label %165

165:                                              ; preds = %172, %164
  br label %167

166:                                              ; No predecessors!
  br label %167

167:                                              ; preds = %166, %165
  br label %168

168:                                              ; preds = %167
  br label %170

169:                                              ; No predecessors!
  br label %170

170:                                              ; preds = %169, %168
  switch i32 0, label %198 [
    i32 0, label %171
    i32 90, label %172
  ]

171:                                              ; preds = %170
  br label %172

172:                                              ; preds = %171, %170
  br label %165, !llvm.loop !52

173:                                              ; No predecessors!
  br label %176

174:                                              ; No predecessors!
  br label %163, !llvm.loop !53

175:                                              ; No predecessors!
  br label %176

176:                                              ; preds = %175, %173
  switch i32 0, label %194 [
    i32 0, label %177
  ]

177:                                              ; preds = %176
  br label %178

178:                                              ; preds = %177
  br label %161, !llvm.loop !54

179:                                              ; preds = %161
  br label %180

180:                                              ; preds = %179
  store i8 6, ptr %1, align 1, !tbaa !55
  br label %181

181:                                              ; preds = %191, %180
  %182 = load i8, ptr %1, align 1, !tbaa !55
  %183 = sext i8 %182 to i32
  %184 = icmp sge i32 %183, 2
  br i1 %184, label %185, label %192

185:                                              ; preds = %181
  store i32 0, ptr %2, align 4, !tbaa !58
  br label %186

186:                                              ; preds = %189, %185
  %187 = load i32, ptr %2, align 4, !tbaa !58
  br label %190

188:                                              ; No predecessors!
  br label %189

189:                                              ; preds = %188
  br label %186, !llvm.loop !60

190:                                              ; preds = %186
  br label %191

191:                                              ; preds = %190
  store i8 0, ptr %1, align 1, !tbaa !55
  br label %181, !llvm.loop !61

192:                                              ; preds = %181
  br label %194

193:                                              ; No predecessors!
  br label %194

194:                                              ; preds = %193, %192, %176
  br label %197

195:                                              ; No predecessors!
  br label %196

196:                                              ; preds = %195
  br label %197

197:                                              ; preds = %196, %194, %157
  ret ptr null

198:                                              ; preds = %170
  unreachable
}

; Function Attrs: nounwind uwtable
define internal zeroext i8 @func_83() #0 {
  br label %1

1:                                                ; preds = %5, %0
  br i1 false, label %2, label %6

2:                                                ; preds = %1
  %3 = load i32, ptr null, align 4, !tbaa !58
  %4 = sext i32 %3 to i64
  br label %5

5:                                                ; preds = %2
  br label %1, !llvm.loop !62

6:                                                ; preds = %1
  br label %7

7:                                                ; preds = %101, %6
  br label %8

8:                                                ; preds = %103, %7
  br label %9

9:                                                ; preds = %8
  br label %10

10:                                               ; preds = %12, %9
  br label %13

11:                                               ; No predecessors!
  br label %12

12:                                               ; preds = %11
  br label %10, !llvm.loop !63

13:                                               ; preds = %10
  br label %14

14:                                               ; preds = %55, %13
  br i1 false, label %15, label %56

15:                                               ; preds = %14
  call void @llvm.lifetime.start.p0(i64 0, ptr null) #2
  br label %16

16:                                               ; preds = %18, %15
  br label %19

17:                                               ; No predecessors!
  br label %18

18:                                               ; preds = %17
  br label %16, !llvm.loop !64

19:                                               ; preds = %16
  br label %20

20:                                               ; preds = %45, %19
  br i1 false, label %21, label %46

21:                                               ; preds = %20
  br label %22

22:                                               ; preds = %43, %21
  br i1 false, label %23, label %44

23:                                               ; preds = %22
  call void @llvm.lifetime.start.p0(i64 0, ptr null) #2
  br label %24

24:                                               ; preds = %26, %23
  br label %27

25:                                               ; No predecessors!
  br label %26

26:                                               ; preds = %25
  br label %24, !llvm.loop !65

27:                                               ; preds = %24
  br label %29

28:                                               ; No predecessors!
  br label %29

29:                                               ; preds = %28, %27
  br label %31

30:                                               ; No predecessors!
  br label %31

31:                                               ; preds = %30, %29
  br label %33

32:                                               ; No predecessors!
  br label %33

33:                                               ; preds = %32, %31
  br label %34

34:                                               ; preds = %33
  br label %36

35:                                               ; No predecessors!
  br label %36

36:                                               ; preds = %35, %34
  br label %38

37:                                               ; No predecessors!
  br label %38

38:                                               ; preds = %37, %36
  br label %42

39:                                               ; No predecessors!
  br label %40

40:                                               ; preds = %39
  br label %41

41:                                               ; preds = %40
  br label %42

42:                                               ; preds = %41, %38
  br label %43

43:                                               ; preds = %42
  br label %22, !llvm.loop !66

44:                                               ; preds = %22
  br label %45

45:                                               ; preds = %44
  br label %20, !llvm.loop !67

46:                                               ; preds = %20
  br label %47

47:                                               ; preds = %50, %46
  %48 = icmp sge i32 0, 0
  br i1 %48, label %49, label %51

49:                                               ; preds = %47
  call void @llvm.lifetime.start.p0(i64 0, ptr null) #2
  br label %50

50:                                               ; preds = %49
  br label %47, !llvm.loop !68

51:                                               ; preds = %47
  br label %54

52:                                               ; No predecessors!
  br label %53

53:                                               ; preds = %52
  br label %54

54:                                               ; preds = %53, %51
  br label %55

55:                                               ; preds = %54
  br label %14, !llvm.loop !69

56:                                               ; preds = %14
  br label %57

57:                                               ; preds = %59, %56
  br label %58

58:                                               ; preds = %57
  br label %101

59:                                               ; No predecessors!
  br label %57, !llvm.loop !70

60:                                               ; No predecessors!
  br label %61

61:                                               ; preds = %99, %60
  br label %62

62:                                               ; preds = %61
  br label %63

63:                                               ; preds = %62
  br label %64

64:                                               ; preds = %70, %63
  br label %65

65:                                               ; preds = %64
  br label %66

66:                                               ; preds = %68, %65
  br label %67

67:                                               ; preds = %66
  br label %68

68:                                               ; preds = %67
  br label %66, !llvm.loop !71

69:                                               ; No predecessors!
  br label %70

70:                                               ; preds = %69
  br label %64, !llvm.loop !72

71:                                               ; No predecessors!
  br label %72

72:                                               ; preds = %75, %71
  br label %73

73:                                               ; preds = %72
  br label %76

74:                                               ; No predecessors!
  br label %75

75:                                               ; preds = %74
  br label %72, !llvm.loop !73

76:                                               ; preds = %73
  br label %91

77:                                               ; No predecessors!
  br label %78

78:                                               ; preds = %80, %77
  br label %79

79:                                               ; preds = %78
  br label %80

80:                                               ; preds = %79
  br label %78, !llvm.loop !74

81:                                               ; No predecessors!
  br label %90

82:                                               ; No predecessors!
  br label %89

83:                                               ; No predecessors!
  br label %84

84:                                               ; preds = %83
  br label %85

85:                                               ; preds = %84
  br label %86

86:                                               ; preds = %85
  br label %87

87:                                               ; preds = %86
  br label %88

88:                                               ; preds = %87
  br label %89

89:                                               ; preds = %88, %82
  br label %90

90:                                               ; preds = %89, %81
  br label %97

91:                                               ; preds = %76
  br label %97

92:                                               ; No predecessors!
  br label %93

93:                                               ; preds = %95, %92
  br label %94

94:                                               ; preds = %93
  br label %95

95:                                               ; preds = %94
  br label %93, !llvm.loop !75

96:                                               ; No predecessors!
  br label %97

97:                                               ; preds = %96, %91, %90
  switch i32 0, label %101 [
    i32 0, label %98
    i32 33, label %100
  ]

98:                                               ; preds = %97
  br label %99

99:                                               ; preds = %98
  br label %61, !llvm.loop !76

100:                                              ; preds = %97
  br label %101

101:                                              ; preds = %100, %97, %58
  switch i32 0, label %206 [
    i32 0, label %102
    i32 5, label %7
  ]

102:                                              ; preds = %101
  br label %103

103:                                              ; preds = %102
  br label %8, !llvm.loop !77

104:                                              ; No predecessors!
  br label %205

105:                                              ; No predecessors!
  br label %106

106:                                              ; preds = %203, %105
  br label %107

107:                                              ; preds = %106
  br label %108

108:                                              ; preds = %127, %107
  br label %109

109:                                              ; preds = %108
  br label %110

110:                                              ; preds = %117, %109
  br label %111

111:                                              ; preds = %110
  br label %112

112:                                              ; preds = %115, %111
  br label %113

113:                                              ; preds = %112
  br label %114

114:                                              ; preds = %113
  br label %115

115:                                              ; preds = %114
  br label %112, !llvm.loop !78

116:                                              ; No predecessors!
  br label %117

117:                                              ; preds = %116
  br label %110, !llvm.loop !79

118:                                              ; No predecessors!
  br label %119

119:                                              ; preds = %125, %118
  br label %120

120:                                              ; preds = %119
  br label %121

121:                                              ; preds = %123, %120
  br label %122

122:                                              ; preds = %121
  br label %123

123:                                              ; preds = %122
  br label %121, !llvm.loop !80

124:                                              ; No predecessors!
  br label %125

125:                                              ; preds = %124
  br label %119, !llvm.loop !81

126:                                              ; No predecessors!
  br label %127

127:                                              ; preds = %126
  br label %108, !llvm.loop !82

128:                                              ; No predecessors!
  br label %129

129:                                              ; preds = %174, %128
  br label %131

130:                                              ; No predecessors!
  br label %131

131:                                              ; preds = %130, %129
  br label %132

132:                                              ; preds = %131
  br label %133

133:                                              ; preds = %153, %132
  br label %134

134:                                              ; preds = %133
  br label %135

135:                                              ; preds = %146, %134
  br label %136

136:                                              ; preds = %135
  br label %137

137:                                              ; preds = %139, %136
  br label %138

138:                                              ; preds = %137
  br label %139

139:                                              ; preds = %138
  br label %137, !llvm.loop !83

140:                                              ; No predecessors!
  br label %141

141:                                              ; preds = %140
  br label %142

142:                                              ; preds = %141
  br label %144

143:                                              ; No predecessors!
  br label %144

144:                                              ; preds = %143, %142
  switch i32 0, label %207 [
    i32 0, label %145
    i32 77, label %146
  ]

145:                                              ; preds = %144
  br label %146

146:                                              ; preds = %145, %144
  br label %135, !llvm.loop !84

147:                                              ; No predecessors!
  br label %148

148:                                              ; preds = %151, %147
  br label %149

149:                                              ; preds = %148
  br label %152

150:                                              ; No predecessors!
  br label %151

151:                                              ; preds = %150
  br label %148, !llvm.loop !85

152:                                              ; preds = %149
  br label %153

153:                                              ; preds = %152
  br label %133, !llvm.loop !86

154:                                              ; No predecessors!
  br label %155

155:                                              ; preds = %162, %154
  br label %158

156:                                              ; No predecessors!
  br label %157

157:                                              ; preds = %156
  br label %158

158:                                              ; preds = %157, %155
  br label %159

159:                                              ; preds = %158
  br label %160

160:                                              ; preds = %159
  br label %161

161:                                              ; preds = %160
  br label %162

162:                                              ; preds = %161
  br label %155, !llvm.loop !87

163:                                              ; No predecessors!
  br label %164

164:                                              ; preds = %172, %163
  br label %165

165:                                              ; preds = %164
  br label %166

166:                                              ; preds = %168, %165
  br label %167

167:                                              ; preds = %166
  br label %168

168:                                              ; preds = %167
  br label %166, !llvm.loop !88

169:                                              ; No predecessors!
  br label %171

170:                                              ; No predecessors!
  br label %171

171:                                              ; preds = %170, %169
  br label %172

172:                                              ; preds = %171
  br label %164, !llvm.loop !89

173:                                              ; No predecessors!
  br label %174

174:                                              ; preds = %173
  br label %129, !llvm.loop !90

175:                                              ; No predecessors!
  br label %176

176:                                              ; preds = %201, %175
  br label %177

177:                                              ; preds = %176
  br label %178

178:                                              ; preds = %180, %177
  br label %179

179:                                              ; preds = %178
  br label %180

180:                                              ; preds = %179
  br label %178, !llvm.loop !91

181:                                              ; No predecessors!
  br label %199

182:                                              ; No predecessors!
  br label %183

183:                                              ; preds = %197, %182
  br label %184

184:                                              ; preds = %183
  br label %185

185:                                              ; preds = %187, %184
  br label %186

186:                                              ; preds = %185
  br label %187

187:                                              ; preds = %186
  br label %185, !llvm.loop !92

188:                                              ; No predecessors!
  br label %189

189:                                              ; preds = %195, %188
  br label %191

190:                                              ; No predecessors!
  br label %191

191:                                              ; preds = %190, %189
  br label %192

192:                                              ; preds = %191
  br label %194

193:                                              ; No predecessors!
  br label %194

194:                                              ; preds = %193, %192
  br label %195

195:                                              ; preds = %194
  br label %189, !llvm.loop !93

196:                                              ; No predecessors!
  br label %197

197:                                              ; preds = %196
  br label %183, !llvm.loop !94

198:                                              ; No predecessors!
  br label %199

199:                                              ; preds = %198, %181
  switch i32 0, label %207 [
    i32 0, label %200
    i32 93, label %202
  ]

200:                                              ; preds = %199
  br label %201

201:                                              ; preds = %200
  br label %176, !llvm.loop !95

202:                                              ; preds = %199
  br label %203

203:                                              ; preds = %202
  br label %106, !llvm.loop !96

204:                                              ; No predecessors!
  br label %205

205:                                              ; preds = %204, %104
  br label %206

206:                                              ; preds = %205, %101
  ret i8 0

207:                                              ; preds = %199, %144
  unreachable
}

; Function Attrs: nounwind uwtable
define internal signext i8 @func_88() #0 {
  br label %1

1:                                                ; preds = %7, %0
  br label %8

2:                                                ; No predecessors!
  br label %3

3:                                                ; preds = %5, %2
  br label %6

4:                                                ; No predecessors!
  br label %5

5:                                                ; preds = %4
  br label %3, !llvm.loop !97

6:                                                ; preds = %3
  br label %7

7:                                                ; preds = %6
  br label %1, !llvm.loop !98

8:                                                ; preds = %1
  br label %9

9:                                                ; preds = %30, %8
  br label %10

10:                                               ; preds = %23, %9
  br i1 false, label %11, label %24

11:                                               ; preds = %10
  call void @llvm.lifetime.start.p0(i64 0, ptr null) #2
  br label %12

12:                                               ; preds = %14, %11
  br label %15

13:                                               ; No predecessors!
  br label %14

14:                                               ; preds = %13
  br label %12, !llvm.loop !99

15:                                               ; preds = %12
  br label %16

16:                                               ; preds = %15
  br label %19

17:                                               ; No predecessors!
  br label %18

18:                                               ; preds = %17
  br label %19, !llvm.loop !100

19:                                               ; preds = %18, %16
  br label %22

20:                                               ; No predecessors!
  br label %21

21:                                               ; preds = %20
  br label %22

22:                                               ; preds = %21, %19
  br label %23

23:                                               ; preds = %22
  br label %10, !llvm.loop !101

24:                                               ; preds = %10
  br label %25

25:                                               ; preds = %32, %24
  br label %33

26:                                               ; No predecessors!
  br label %27

27:                                               ; preds = %26
  br label %30

28:                                               ; No predecessors!
  br label %29

29:                                               ; preds = %28
  br label %30

30:                                               ; preds = %29, %27
  switch i32 0, label %46 [
    i32 0, label %31
    i32 8, label %9
  ]

31:                                               ; preds = %30
  br label %32

32:                                               ; preds = %31
  br label %25, !llvm.loop !102

33:                                               ; preds = %25
  br label %34

34:                                               ; preds = %44, %33
  br i1 false, label %35, label %45

35:                                               ; preds = %34
  call void @llvm.lifetime.start.p0(i64 0, ptr null) #2
  store i32 0, ptr null, align 4, !tbaa !58
  br label %36

36:                                               ; preds = %38, %35
  br label %39

37:                                               ; No predecessors!
  br label %38

38:                                               ; preds = %37
  br label %36, !llvm.loop !103

39:                                               ; preds = %36
  br label %40

40:                                               ; preds = %42, %39
  br label %43

41:                                               ; No predecessors!
  br label %42

42:                                               ; preds = %41
  br label %40, !llvm.loop !104

43:                                               ; preds = %40
  br label %44

44:                                               ; preds = %43
  br label %34, !llvm.loop !105

45:                                               ; preds = %34
  ret i8 0

46:                                               ; preds = %30
  unreachable
}

attributes #0 = { nounwind uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { nounwind }

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
!16 = distinct !{!16, !1, !2}
!17 = distinct !{!17, !1, !2}
!18 = distinct !{!18, !1, !2}
!19 = distinct !{!19, !1, !2}
!20 = distinct !{!20, !1, !2}
!21 = distinct !{!21, !1, !2}
!22 = distinct !{!22, !1, !2}
!23 = distinct !{!23, !1, !2}
!24 = distinct !{!24, !1, !2}
!25 = distinct !{!25, !1, !2}
!26 = distinct !{!26, !1, !2}
!27 = distinct !{!27, !1, !2}
!28 = distinct !{!28, !1, !2}
!29 = distinct !{!29, !1, !2}
!30 = distinct !{!30, !1, !2}
!31 = distinct !{!31, !1, !2}
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
!55 = !{!56, !56, i64 0}
!56 = !{!"omnipotent char", !57, i64 0}
!57 = !{!"Simple C/C++ TBAA"}
!58 = !{!59, !59, i64 0}
!59 = !{!"int", !56, i64 0}
!60 = distinct !{!60, !1, !2}
!61 = distinct !{!61, !1, !2}
!62 = distinct !{!62, !1, !2}
!63 = distinct !{!63, !1, !2}
!64 = distinct !{!64, !1, !2}
!65 = distinct !{!65, !1, !2}
!66 = distinct !{!66, !1, !2}
!67 = distinct !{!67, !1, !2}
!68 = distinct !{!68, !1, !2}
!69 = distinct !{!69, !1, !2}
!70 = distinct !{!70, !1, !2}
!71 = distinct !{!71, !1, !2}
!72 = distinct !{!72, !1, !2}
!73 = distinct !{!73, !1, !2}
!74 = distinct !{!74, !1, !2}
!75 = distinct !{!75, !1, !2}
!76 = distinct !{!76, !1, !2}
!77 = distinct !{!77, !1, !2}
!78 = distinct !{!78, !1, !2}
!79 = distinct !{!79, !1, !2}
!80 = distinct !{!80, !1, !2}
!81 = distinct !{!81, !1, !2}
!82 = distinct !{!82, !1, !2}
!83 = distinct !{!83, !1, !2}
!84 = distinct !{!84, !1, !2}
!85 = distinct !{!85, !1, !2}
!86 = distinct !{!86, !1, !2}
!87 = distinct !{!87, !1, !2}
!88 = distinct !{!88, !1, !2}
!89 = distinct !{!89, !1, !2}
!90 = distinct !{!90, !1, !2}
!91 = distinct !{!91, !1, !2}
!92 = distinct !{!92, !1, !2}
!93 = distinct !{!93, !1, !2}
!94 = distinct !{!94, !1, !2}
!95 = distinct !{!95, !1, !2}
!96 = distinct !{!96, !1, !2}
!97 = distinct !{!97, !1, !2}
!98 = distinct !{!98, !1, !2}
!99 = distinct !{!99, !1, !2}
!100 = distinct !{!100, !1, !2}
!101 = distinct !{!101, !1, !2}
!102 = distinct !{!102, !1, !2}
!103 = distinct !{!103, !1, !2}
!104 = distinct !{!104, !1, !2}
!105 = distinct !{!105, !1, !2}
