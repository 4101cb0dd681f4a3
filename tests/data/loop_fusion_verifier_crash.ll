; ModuleID = '-'
source_filename = "-"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@stderr = external local_unnamed_addr global ptr, align 8
@0 = private unnamed_addr constant [34 x i8] c"crc32: dataset must be 1, 2 or 3\0A\00", align 1
@1 = internal unnamed_addr constant [3 x i64] [i64 65536, i64 524288, i64 4194304], align 16
@2 = private unnamed_addr constant [22 x i8] c"crc32: out of memory\0A\00", align 1
@3 = private unnamed_addr constant [35 x i8] c"crc32: known test vector mismatch\0A\00", align 1
@4 = private unnamed_addr constant [33 x i8] c"crc32: implementations disagree\0A\00", align 1
@5 = private unnamed_addr constant [16 x i8] c"checksum: %08x\0A\00", align 1
@6 = internal unnamed_addr constant [10 x i8] c"123456789\00", align 1
@7 = internal unnamed_addr global i32 625341585, align 4

; Function Attrs: nounwind uwtable
define dso_local range(i32 0, 2) i32 @main(i32 noundef %0, ptr nocapture noundef readonly %1) local_unnamed_addr #0 {
  %3 = alloca i32, align 4
  %4 = icmp sgt i32 %0, 1
  br i1 %4, label %5, label %12

5:                                                ; preds = %2
  %6 = getelementptr inbounds i8, ptr %1, i64 8
  %7 = load ptr, ptr %6, align 8, !tbaa !0
  %8 = tail call i32 @atoi(ptr nocapture noundef %7) #9
  %9 = add i32 %8, -4
  %10 = icmp ult i32 %9, -3
  br i1 %10, label %11, label %12

11:                                               ; preds = %5
  call fastcc void @11(ptr %3) #10
  br label %830

12:                                               ; preds = %5, %2
  %13 = phi i32 [ 1, %2 ], [ %8, %5 ]
  %14 = add nsw i32 %13, -1
  %15 = zext nneg i32 %14 to i64
  %16 = getelementptr inbounds [3 x i64], ptr @1, i64 0, i64 %15
  %17 = load i64, ptr %16, align 8, !tbaa !4
  %18 = tail call noalias dereferenceable_or_null(4100) ptr @malloc(i64 noundef 4100) #11
  %19 = tail call noalias dereferenceable_or_null(4100) ptr @malloc(i64 noundef 4100) #11
  %20 = tail call noalias ptr @malloc(i64 noundef %17) #11
  %21 = icmp ne ptr %18, null
  %22 = icmp ne ptr %19, null
  %23 = and i1 %21, %22
  %24 = icmp ne ptr %20, null
  %25 = select i1 %23, i1 %24, i1 false
  br i1 %25, label %27, label %26

26:                                               ; preds = %12
  call fastcc void @8(ptr %3) #10
  br label %830

27:                                               ; preds = %12
  %28 = getelementptr inbounds i8, ptr %18, i64 4096
  store i32 -306674912, ptr %28, align 4, !tbaa !6
  br label %31

29:                                               ; preds = %39
  %30 = getelementptr i8, ptr %18, i64 1024
  br label %54

31:                                               ; preds = %39, %27
  %32 = phi i64 [ 0, %27 ], [ %42, %39 ]
  %33 = trunc nuw nsw i64 %32 to i32
  %34 = and i32 %33, 1
  %35 = icmp eq i32 %34, 0
  %36 = lshr i32 %33, 1
  %37 = xor i32 %36, -306674912
  %38 = select i1 %35, i32 %36, i32 %37
  br label %44

39:                                               ; preds = %44
  %40 = phi i32 [ %51, %44 ]
  %41 = getelementptr inbounds [256 x i32], ptr %18, i64 0, i64 %32
  store i32 %40, ptr %41, align 4, !tbaa !9
  %42 = add nuw nsw i64 %32, 1
  %43 = icmp ne i64 %42, 256
  br i1 %43, label %31, label %29, !llvm.loop !10

44:                                               ; preds = %44, %31
  %45 = phi i32 [ 7, %31 ], [ %52, %44 ]
  %46 = phi i32 [ %38, %31 ], [ %51, %44 ]
  %47 = and i32 %46, 1
  %48 = icmp eq i32 %47, 0
  %49 = lshr i32 %46, 1
  %50 = xor i32 %49, -306674912
  %51 = select i1 %48, i32 %49, i32 %50
  %52 = add nsw i32 %45, -1
  %53 = icmp eq i32 %52, 0
  br i1 %53, label %39, label %44, !llvm.loop !13

54:                                               ; preds = %54, %29
  %55 = phi ptr [ %30, %29 ], [ %81, %54 ]
  %56 = phi i64 [ 0, %29 ], [ %79, %54 ]
  %57 = getelementptr inbounds [256 x i32], ptr %18, i64 0, i64 %56
  %58 = load i32, ptr %57, align 4, !tbaa !9
  %59 = and i32 %58, 255
  %60 = zext nneg i32 %59 to i64
  %61 = getelementptr inbounds [256 x i32], ptr %18, i64 0, i64 %60
  %62 = load i32, ptr %61, align 4, !tbaa !9
  %63 = lshr i32 %58, 8
  %64 = xor i32 %62, %63
  store i32 %64, ptr %55, align 4, !tbaa !9
  %65 = getelementptr i8, ptr %55, i64 1024
  %66 = and i32 %64, 255
  %67 = zext nneg i32 %66 to i64
  %68 = getelementptr inbounds [256 x i32], ptr %18, i64 0, i64 %67
  %69 = load i32, ptr %68, align 4, !tbaa !9
  %70 = lshr i32 %64, 8
  %71 = xor i32 %69, %70
  store i32 %71, ptr %65, align 4, !tbaa !9
  %72 = getelementptr i8, ptr %55, i64 2048
  %73 = and i32 %71, 255
  %74 = zext nneg i32 %73 to i64
  %75 = getelementptr inbounds [256 x i32], ptr %18, i64 0, i64 %74
  %76 = load i32, ptr %75, align 4, !tbaa !9
  %77 = lshr i32 %71, 8
  %78 = xor i32 %76, %77
  store i32 %78, ptr %72, align 4, !tbaa !9
  %79 = add nuw nsw i64 %56, 1
  %80 = icmp ne i64 %79, 256
  %81 = getelementptr i8, ptr %55, i64 4
  br i1 %80, label %54, label %82, !llvm.loop !14

82:                                               ; preds = %54
  %83 = getelementptr inbounds i8, ptr %19, i64 4096
  store i32 -2097792136, ptr %83, align 4, !tbaa !6
  br label %86

84:                                               ; preds = %94
  %85 = getelementptr i8, ptr %19, i64 1024
  br label %109

86:                                               ; preds = %94, %82
  %87 = phi i64 [ 0, %82 ], [ %97, %94 ]
  %88 = trunc nuw nsw i64 %87 to i32
  %89 = and i32 %88, 1
  %90 = icmp eq i32 %89, 0
  %91 = lshr i32 %88, 1
  %92 = xor i32 %91, -2097792136
  %93 = select i1 %90, i32 %91, i32 %92
  br label %99

94:                                               ; preds = %99
  %95 = phi i32 [ %106, %99 ]
  %96 = getelementptr inbounds [256 x i32], ptr %19, i64 0, i64 %87
  store i32 %95, ptr %96, align 4, !tbaa !9
  %97 = add nuw nsw i64 %87, 1
  %98 = icmp ne i64 %97, 256
  br i1 %98, label %86, label %84, !llvm.loop !10

99:                                               ; preds = %99, %86
  %100 = phi i32 [ 7, %86 ], [ %107, %99 ]
  %101 = phi i32 [ %93, %86 ], [ %106, %99 ]
  %102 = and i32 %101, 1
  %103 = icmp eq i32 %102, 0
  %104 = lshr i32 %101, 1
  %105 = xor i32 %104, -2097792136
  %106 = select i1 %103, i32 %104, i32 %105
  %107 = add nsw i32 %100, -1
  %108 = icmp eq i32 %107, 0
  br i1 %108, label %94, label %99, !llvm.loop !13

109:                                              ; preds = %109, %84
  %110 = phi ptr [ %85, %84 ], [ %136, %109 ]
  %111 = phi i64 [ 0, %84 ], [ %134, %109 ]
  %112 = getelementptr inbounds [256 x i32], ptr %19, i64 0, i64 %111
  %113 = load i32, ptr %112, align 4, !tbaa !9
  %114 = and i32 %113, 255
  %115 = zext nneg i32 %114 to i64
  %116 = getelementptr inbounds [256 x i32], ptr %19, i64 0, i64 %115
  %117 = load i32, ptr %116, align 4, !tbaa !9
  %118 = lshr i32 %113, 8
  %119 = xor i32 %117, %118
  store i32 %119, ptr %110, align 4, !tbaa !9
  %120 = getelementptr i8, ptr %110, i64 1024
  %121 = and i32 %119, 255
  %122 = zext nneg i32 %121 to i64
  %123 = getelementptr inbounds [256 x i32], ptr %19, i64 0, i64 %122
  %124 = load i32, ptr %123, align 4, !tbaa !9
  %125 = lshr i32 %119, 8
  %126 = xor i32 %124, %125
  store i32 %126, ptr %120, align 4, !tbaa !9
  %127 = getelementptr i8, ptr %110, i64 2048
  %128 = and i32 %126, 255
  %129 = zext nneg i32 %128 to i64
  %130 = getelementptr inbounds [256 x i32], ptr %19, i64 0, i64 %129
  %131 = load i32, ptr %130, align 4, !tbaa !9
  %132 = lshr i32 %126, 8
  %133 = xor i32 %131, %132
  store i32 %133, ptr %127, align 4, !tbaa !9
  %134 = add nuw nsw i64 %111, 1
  %135 = icmp ne i64 %134, 256
  %136 = getelementptr i8, ptr %110, i64 4
  br i1 %135, label %109, label %137, !llvm.loop !14

137:                                              ; preds = %109
  %138 = getelementptr inbounds [256 x i32], ptr %18, i64 0, i64 206
  %139 = load i32, ptr %138, align 4, !tbaa !9
  %140 = xor i32 %139, 16777215
  %141 = trunc i32 %140 to i8
  %142 = xor i8 %141, 50
  %143 = zext i8 %142 to i64
  %144 = getelementptr inbounds [256 x i32], ptr %18, i64 0, i64 %143
  %145 = load i32, ptr %144, align 4, !tbaa !9
  %146 = lshr i32 %140, 8
  %147 = xor i32 %146, %145
  %148 = trunc i32 %147 to i8
  %149 = xor i8 %148, 51
  %150 = zext i8 %149 to i64
  %151 = getelementptr inbounds [256 x i32], ptr %18, i64 0, i64 %150
  %152 = load i32, ptr %151, align 4, !tbaa !9
  %153 = lshr i32 %147, 8
  %154 = xor i32 %153, %152
  %155 = trunc i32 %154 to i8
  %156 = xor i8 %155, 52
  %157 = zext i8 %156 to i64
  %158 = getelementptr inbounds [256 x i32], ptr %18, i64 0, i64 %157
  %159 = load i32, ptr %158, align 4, !tbaa !9
  %160 = lshr i32 %154, 8
  %161 = xor i32 %160, %159
  %162 = trunc i32 %161 to i8
  %163 = xor i8 %162, 53
  %164 = zext i8 %163 to i64
  %165 = getelementptr inbounds [256 x i32], ptr %18, i64 0, i64 %164
  %166 = load i32, ptr %165, align 4, !tbaa !9
  %167 = lshr i32 %161, 8
  %168 = xor i32 %167, %166
  %169 = trunc i32 %168 to i8
  %170 = xor i8 %169, 54
  %171 = zext i8 %170 to i64
  %172 = getelementptr inbounds [256 x i32], ptr %18, i64 0, i64 %171
  %173 = load i32, ptr %172, align 4, !tbaa !9
  %174 = lshr i32 %168, 8
  %175 = xor i32 %174, %173
  %176 = trunc i32 %175 to i8
  %177 = xor i8 %176, 55
  %178 = zext i8 %177 to i64
  %179 = getelementptr inbounds [256 x i32], ptr %18, i64 0, i64 %178
  %180 = load i32, ptr %179, align 4, !tbaa !9
  %181 = lshr i32 %175, 8
  %182 = xor i32 %181, %180
  %183 = trunc i32 %182 to i8
  %184 = xor i8 %183, 56
  %185 = zext i8 %184 to i64
  %186 = getelementptr inbounds [256 x i32], ptr %18, i64 0, i64 %185
  %187 = load i32, ptr %186, align 4, !tbaa !9
  %188 = lshr i32 %182, 8
  %189 = xor i32 %188, %187
  %190 = trunc i32 %189 to i8
  %191 = xor i8 %190, 57
  %192 = zext i8 %191 to i64
  %193 = getelementptr inbounds [256 x i32], ptr %18, i64 0, i64 %192
  %194 = load i32, ptr %193, align 4, !tbaa !9
  %195 = getelementptr inbounds i8, ptr %18, i64 3072
  %196 = getelementptr inbounds i8, ptr %18, i64 2048
  %197 = getelementptr inbounds [256 x i32], ptr %195, i64 0, i64 206
  %198 = load i32, ptr %197, align 4, !tbaa !9
  %199 = getelementptr inbounds [256 x i32], ptr %196, i64 0, i64 205
  %200 = load i32, ptr %199, align 4, !tbaa !9
  %201 = getelementptr inbounds [256 x i32], ptr %30, i64 0, i64 204
  %202 = load i32, ptr %201, align 4, !tbaa !9
  %203 = getelementptr inbounds [256 x i32], ptr %18, i64 0, i64 203
  %204 = load i32, ptr %203, align 4, !tbaa !9
  %205 = xor i32 %198, 943142453
  %206 = xor i32 %205, %200
  %207 = xor i32 %206, %202
  %208 = xor i32 %207, %204
  %209 = and i32 %208, 255
  %210 = zext nneg i32 %209 to i64
  %211 = getelementptr inbounds [256 x i32], ptr %18, i64 0, i64 %210
  %212 = getelementptr inbounds i8, ptr %211, i64 3072
  %213 = load i32, ptr %212, align 4, !tbaa !9
  %214 = lshr i32 %208, 8
  %215 = and i32 %214, 255
  %216 = zext nneg i32 %215 to i64
  %217 = getelementptr inbounds [256 x i32], ptr %18, i64 0, i64 %216
  %218 = getelementptr inbounds i8, ptr %217, i64 2048
  %219 = load i32, ptr %218, align 4, !tbaa !9
  %220 = xor i32 %219, %213
  %221 = lshr i32 %208, 16
  %222 = and i32 %221, 255
  %223 = zext nneg i32 %222 to i64
  %224 = getelementptr [256 x i32], ptr %18, i64 0, i64 %223
  %225 = getelementptr i8, ptr %224, i64 1024
  %226 = load i32, ptr %225, align 4, !tbaa !9
  %227 = xor i32 %220, %226
  %228 = lshr i32 %208, 24
  %229 = zext nneg i32 %228 to i64
  %230 = getelementptr inbounds [256 x i32], ptr %18, i64 0, i64 %229
  %231 = load i32, ptr %230, align 4, !tbaa !9
  %232 = xor i32 %227, %231
  %233 = trunc i32 %232 to i8
  %234 = xor i8 %233, 57
  %235 = zext i8 %234 to i64
  %236 = getelementptr inbounds [256 x i32], ptr %18, i64 0, i64 %235
  %237 = load i32, ptr %236, align 4, !tbaa !9
  br label %238

238:                                              ; preds = %250, %137
  %239 = phi i64 [ 0, %137 ], [ %252, %250 ]
  %240 = phi i32 [ -1, %137 ], [ %251, %250 ]
  %241 = getelementptr inbounds i8, ptr @6, i64 %239
  %242 = load i8, ptr %241, align 1, !tbaa !15
  %243 = zext i8 %242 to i32
  %244 = xor i32 %243, %240
  %245 = and i32 %244, 1
  %246 = lshr i32 %244, 1
  %247 = icmp eq i32 %245, 0
  %248 = select i1 %247, i32 0, i32 -306674912
  %249 = xor i32 %248, %246
  br label %254

250:                                              ; preds = %254
  %251 = phi i32 [ %261, %254 ]
  %252 = add nuw nsw i64 %239, 1
  %253 = icmp ne i64 %252, 9
  br i1 %253, label %238, label %264, !llvm.loop !16

254:                                              ; preds = %254, %238
  %255 = phi i32 [ %249, %238 ], [ %261, %254 ]
  %256 = phi i32 [ 7, %238 ], [ %262, %254 ]
  %257 = and i32 %255, 1
  %258 = lshr i32 %255, 1
  %259 = icmp eq i32 %257, 0
  %260 = select i1 %259, i32 0, i32 -306674912
  %261 = xor i32 %260, %258
  %262 = add nsw i32 %256, -1
  %263 = icmp eq i32 %262, 0
  br i1 %263, label %250, label %254, !llvm.loop !17

264:                                              ; preds = %250
  %265 = phi i32 [ %251, %250 ]
  %266 = getelementptr inbounds [256 x i32], ptr %19, i64 0, i64 206
  %267 = load i32, ptr %266, align 4, !tbaa !9
  %268 = xor i32 %267, 16777215
  %269 = trunc i32 %268 to i8
  %270 = xor i8 %269, 50
  %271 = zext i8 %270 to i64
  %272 = getelementptr inbounds [256 x i32], ptr %19, i64 0, i64 %271
  %273 = load i32, ptr %272, align 4, !tbaa !9
  %274 = lshr i32 %268, 8
  %275 = xor i32 %274, %273
  %276 = trunc i32 %275 to i8
  %277 = xor i8 %276, 51
  %278 = zext i8 %277 to i64
  %279 = getelementptr inbounds [256 x i32], ptr %19, i64 0, i64 %278
  %280 = load i32, ptr %279, align 4, !tbaa !9
  %281 = lshr i32 %275, 8
  %282 = xor i32 %281, %280
  %283 = trunc i32 %282 to i8
  %284 = xor i8 %283, 52
  %285 = zext i8 %284 to i64
  %286 = getelementptr inbounds [256 x i32], ptr %19, i64 0, i64 %285
  %287 = load i32, ptr %286, align 4, !tbaa !9
  %288 = lshr i32 %282, 8
  %289 = xor i32 %288, %287
  %290 = trunc i32 %289 to i8
  %291 = xor i8 %290, 53
  %292 = zext i8 %291 to i64
  %293 = getelementptr inbounds [256 x i32], ptr %19, i64 0, i64 %292
  %294 = load i32, ptr %293, align 4, !tbaa !9
  %295 = lshr i32 %289, 8
  %296 = xor i32 %295, %294
  %297 = trunc i32 %296 to i8
  %298 = xor i8 %297, 54
  %299 = zext i8 %298 to i64
  %300 = getelementptr inbounds [256 x i32], ptr %19, i64 0, i64 %299
  %301 = load i32, ptr %300, align 4, !tbaa !9
  %302 = lshr i32 %296, 8
  %303 = xor i32 %302, %301
  %304 = trunc i32 %303 to i8
  %305 = xor i8 %304, 55
  %306 = zext i8 %305 to i64
  %307 = getelementptr inbounds [256 x i32], ptr %19, i64 0, i64 %306
  %308 = load i32, ptr %307, align 4, !tbaa !9
  %309 = lshr i32 %303, 8
  %310 = xor i32 %309, %308
  %311 = trunc i32 %310 to i8
  %312 = xor i8 %311, 56
  %313 = zext i8 %312 to i64
  %314 = getelementptr inbounds [256 x i32], ptr %19, i64 0, i64 %313
  %315 = load i32, ptr %314, align 4, !tbaa !9
  %316 = lshr i32 %310, 8
  %317 = xor i32 %316, %315
  %318 = trunc i32 %317 to i8
  %319 = xor i8 %318, 57
  %320 = zext i8 %319 to i64
  %321 = getelementptr inbounds [256 x i32], ptr %19, i64 0, i64 %320
  %322 = load i32, ptr %321, align 4, !tbaa !9
  %323 = getelementptr inbounds i8, ptr %19, i64 3072
  %324 = getelementptr inbounds i8, ptr %19, i64 2048
  %325 = getelementptr inbounds [256 x i32], ptr %323, i64 0, i64 206
  %326 = load i32, ptr %325, align 4, !tbaa !9
  %327 = getelementptr inbounds [256 x i32], ptr %324, i64 0, i64 205
  %328 = load i32, ptr %327, align 4, !tbaa !9
  %329 = getelementptr inbounds [256 x i32], ptr %85, i64 0, i64 204
  %330 = load i32, ptr %329, align 4, !tbaa !9
  %331 = getelementptr inbounds [256 x i32], ptr %19, i64 0, i64 203
  %332 = load i32, ptr %331, align 4, !tbaa !9
  %333 = xor i32 %326, 943142453
  %334 = xor i32 %333, %328
  %335 = xor i32 %334, %330
  %336 = xor i32 %335, %332
  %337 = and i32 %336, 255
  %338 = zext nneg i32 %337 to i64
  %339 = getelementptr inbounds [256 x i32], ptr %19, i64 0, i64 %338
  %340 = getelementptr inbounds i8, ptr %339, i64 3072
  %341 = load i32, ptr %340, align 4, !tbaa !9
  %342 = lshr i32 %336, 8
  %343 = and i32 %342, 255
  %344 = zext nneg i32 %343 to i64
  %345 = getelementptr inbounds [256 x i32], ptr %19, i64 0, i64 %344
  %346 = getelementptr inbounds i8, ptr %345, i64 2048
  %347 = load i32, ptr %346, align 4, !tbaa !9
  %348 = xor i32 %347, %341
  %349 = lshr i32 %336, 16
  %350 = and i32 %349, 255
  %351 = zext nneg i32 %350 to i64
  %352 = getelementptr [256 x i32], ptr %19, i64 0, i64 %351
  %353 = getelementptr i8, ptr %352, i64 1024
  %354 = load i32, ptr %353, align 4, !tbaa !9
  %355 = xor i32 %348, %354
  %356 = lshr i32 %336, 24
  %357 = zext nneg i32 %356 to i64
  %358 = getelementptr inbounds [256 x i32], ptr %19, i64 0, i64 %357
  %359 = load i32, ptr %358, align 4, !tbaa !9
  %360 = xor i32 %355, %359
  %361 = trunc i32 %360 to i8
  %362 = xor i8 %361, 57
  %363 = zext i8 %362 to i64
  %364 = getelementptr inbounds [256 x i32], ptr %19, i64 0, i64 %363
  %365 = load i32, ptr %364, align 4, !tbaa !9
  br label %366

366:                                              ; preds = %378, %264
  %367 = phi i64 [ 0, %264 ], [ %380, %378 ]
  %368 = phi i32 [ -1, %264 ], [ %379, %378 ]
  %369 = getelementptr inbounds i8, ptr @6, i64 %367
  %370 = load i8, ptr %369, align 1, !tbaa !15
  %371 = zext i8 %370 to i32
  %372 = xor i32 %371, %368
  %373 = and i32 %372, 1
  %374 = lshr i32 %372, 1
  %375 = icmp eq i32 %373, 0
  %376 = select i1 %375, i32 0, i32 -2097792136
  %377 = xor i32 %376, %374
  br label %382

378:                                              ; preds = %382
  %379 = phi i32 [ %389, %382 ]
  %380 = add nuw nsw i64 %367, 1
  %381 = icmp ne i64 %380, 9
  br i1 %381, label %366, label %392, !llvm.loop !16

382:                                              ; preds = %382, %366
  %383 = phi i32 [ %377, %366 ], [ %389, %382 ]
  %384 = phi i32 [ 7, %366 ], [ %390, %382 ]
  %385 = and i32 %383, 1
  %386 = lshr i32 %383, 1
  %387 = icmp eq i32 %385, 0
  %388 = select i1 %387, i32 0, i32 -2097792136
  %389 = xor i32 %388, %386
  %390 = add nsw i32 %384, -1
  %391 = icmp eq i32 %390, 0
  br i1 %391, label %378, label %382, !llvm.loop !17

392:                                              ; preds = %378
  %393 = phi i32 [ %379, %378 ]
  %394 = lshr i32 %189, 8
  %395 = xor i32 %194, -1
  %396 = xor i32 %395, %394
  %397 = icmp eq i32 %396, -873187034
  %398 = xor i32 %265, -1
  %399 = lshr i32 %317, 8
  %400 = xor i32 %322, -1
  %401 = xor i32 %400, %399
  %402 = lshr i32 %360, 8
  %403 = xor i32 %365, -1
  %404 = xor i32 %403, %402
  %405 = lshr i32 %232, 8
  %406 = xor i32 %237, -1
  %407 = xor i32 %406, %405
  %408 = icmp eq i32 %407, -873187034
  %409 = icmp eq i32 %398, -873187034
  %410 = icmp eq i32 %401, -486108541
  %411 = icmp eq i32 %404, -486108541
  %412 = xor i32 %393, -1
  %413 = icmp eq i32 %412, -486108541
  %414 = select i1 %413, i1 %411, i1 false
  %415 = select i1 %414, i1 %410, i1 false
  %416 = select i1 %415, i1 %409, i1 false
  %417 = select i1 %416, i1 %408, i1 false
  %418 = select i1 %417, i1 %397, i1 false
  %419 = zext i1 %418 to i32
  %420 = icmp eq i32 %419, 0
  br i1 %420, label %421, label %422

421:                                              ; preds = %392
  call fastcc void @10(ptr %3) #10
  br label %830

422:                                              ; preds = %392
  %423 = icmp ugt i64 %17, 3
  br i1 %423, label %424, label %488

424:                                              ; preds = %422
  %425 = zext i64 %17 to i128
  %426 = add nsw i128 %425, -4
  %427 = lshr i128 %426, 2
  %428 = trunc nuw nsw i128 %427 to i64
  %429 = shl nuw i64 %428, 2
  %430 = icmp ugt i64 %429, -9
  %431 = load i32, ptr @7, align 4, !tbaa !9
  br i1 %430, label %433, label %432

432:                                              ; preds = %424
  br label %461

433:                                              ; preds = %424
  br label %434

434:                                              ; preds = %434, %433
  %435 = phi i32 [ %431, %433 ], [ %442, %434 ]
  %436 = phi i64 [ 0, %433 ], [ %455, %434 ]
  %437 = shl i32 %435, 13
  %438 = xor i32 %437, %435
  %439 = lshr i32 %438, 17
  %440 = xor i32 %439, %438
  %441 = shl i32 %440, 5
  %442 = xor i32 %441, %440
  %443 = trunc i32 %442 to i8
  %444 = getelementptr i8, ptr %20, i64 %436
  %445 = lshr i32 %442, 8
  %446 = trunc i32 %445 to i8
  %447 = lshr i32 %442, 16
  %448 = trunc i32 %447 to i8
  %449 = lshr i32 %442, 24
  %450 = trunc nuw i32 %449 to i8
  %451 = insertelement <4 x i8> poison, i8 %443, i32 0
  %452 = insertelement <4 x i8> %451, i8 %446, i32 1
  %453 = insertelement <4 x i8> %452, i8 %448, i32 2
  %454 = insertelement <4 x i8> %453, i8 %450, i32 3
  store <4 x i8> %454, ptr %444, align 1, !tbaa !15
  %455 = add nuw i64 %436, 4
  %456 = add nuw i64 %455, 4
  %457 = icmp ule i64 %456, %17
  br i1 %457, label %434, label %458, !llvm.loop !18

458:                                              ; preds = %434
  %459 = phi i32 [ %442, %434 ]
  %460 = phi i64 [ %455, %434 ]
  store i32 %459, ptr @7, align 4, !tbaa !9
  br label %488

461:                                              ; preds = %461, %432
  %462 = phi i32 [ %431, %432 ], [ %469, %461 ]
  %463 = phi i64 [ 0, %432 ], [ %482, %461 ]
  %464 = shl i32 %462, 13
  %465 = xor i32 %464, %462
  %466 = lshr i32 %465, 17
  %467 = xor i32 %466, %465
  %468 = shl i32 %467, 5
  %469 = xor i32 %468, %467
  %470 = trunc i32 %469 to i8
  %471 = getelementptr i8, ptr %20, i64 %463
  %472 = lshr i32 %469, 8
  %473 = trunc i32 %472 to i8
  %474 = lshr i32 %469, 16
  %475 = trunc i32 %474 to i8
  %476 = lshr i32 %469, 24
  %477 = trunc nuw i32 %476 to i8
  %478 = insertelement <4 x i8> poison, i8 %470, i32 0
  %479 = insertelement <4 x i8> %478, i8 %473, i32 1
  %480 = insertelement <4 x i8> %479, i8 %475, i32 2
  %481 = insertelement <4 x i8> %480, i8 %477, i32 3
  store <4 x i8> %481, ptr %471, align 1, !tbaa !15
  %482 = add nuw i64 %463, 4
  %483 = add nuw i64 %482, 4
  %484 = icmp ule i64 %483, %17
  br i1 %484, label %461, label %485, !llvm.loop !18

485:                                              ; preds = %461
  %486 = phi i32 [ %469, %461 ]
  %487 = phi i64 [ %482, %461 ]
  store i32 %486, ptr @7, align 4, !tbaa !9
  br label %488

488:                                              ; preds = %422, %485, %458
  %489 = phi i64 [ %460, %458 ], [ %487, %485 ], [ 0, %422 ]
  %490 = icmp ult i64 %489, %17
  br i1 %490, label %491, label %509

491:                                              ; preds = %488
  %492 = load i32, ptr @7, align 4, !tbaa !9
  %493 = add i64 %17, -1
  br label %494

494:                                              ; preds = %494, %491
  %495 = phi i32 [ %492, %491 ], [ %502, %494 ]
  %496 = phi i64 [ %489, %491 ], [ %506, %494 ]
  %497 = shl i32 %495, 13
  %498 = xor i32 %497, %495
  %499 = lshr i32 %498, 17
  %500 = xor i32 %499, %498
  %501 = shl i32 %500, 5
  %502 = xor i32 %501, %500
  %503 = trunc i32 %502 to i8
  %504 = getelementptr inbounds i8, ptr %20, i64 %496
  store i8 %503, ptr %504, align 1, !tbaa !15
  %505 = icmp ne i64 %496, %493
  %506 = add nuw i64 %496, 1
  br i1 %505, label %494, label %507, !llvm.loop !19

507:                                              ; preds = %494
  %508 = phi i32 [ %502, %494 ]
  store i32 %508, ptr @7, align 4, !tbaa !9
  br label %509

509:                                              ; preds = %488, %507
  %510 = icmp ugt i64 %17, 64
  br i1 %510, label %511, label %526

511:                                              ; preds = %509
  %512 = getelementptr i8, ptr %20, i64 -64
  %513 = getelementptr i8, ptr %512, i64 64
  tail call void @llvm.memset.p0.i64(ptr noundef nonnull align 1 dereferenceable(64) %513, i8 0, i64 64, i1 false)
  %514 = icmp ult i64 4160, %17
  br i1 %514, label %515, label %526, !llvm.loop !20

515:                                              ; preds = %511
  br label %516

516:                                              ; preds = %516, %515
  %517 = phi i64 [ 4160, %515 ], [ %522, %516 ]
  %518 = phi i64 [ -9223372036854775808, %515 ], [ %523, %516 ]
  %519 = ashr i64 %518, 63
  %520 = trunc nsw i64 %519 to i8
  %521 = getelementptr i8, ptr %512, i64 %517
  tail call void @llvm.memset.p0.i64(ptr noundef nonnull align 1 dereferenceable(64) %521, i8 %520, i64 64, i1 false)
  %522 = add i64 %517, 4096
  %523 = add i64 %518, -9223372036854775808
  %524 = icmp ult i64 %522, %17
  br i1 %524, label %516, label %525, !llvm.loop !20

525:                                              ; preds = %516
  br label %526

526:                                              ; preds = %525, %511, %509
  %527 = lshr i64 %17, 4
  %528 = icmp eq i64 %17, 0
  %529 = icmp eq i64 %527, 0
  %530 = add i64 %17, -1
  br label %535

531:                                              ; preds = %805
  %532 = phi i32 [ %814, %805 ]
  %533 = phi i32 [ %818, %805 ]
  %534 = icmp eq i32 %532, 0
  br i1 %534, label %827, label %828

535:                                              ; preds = %805, %526
  %536 = phi i32 [ 1, %526 ], [ %814, %805 ]
  %537 = phi i32 [ 0, %526 ], [ %818, %805 ]
  %538 = phi i64 [ 0, %526 ], [ %825, %805 ]
  br i1 %528, label %732, label %539

539:                                              ; preds = %535
  br label %540

540:                                              ; preds = %540, %539
  %541 = phi i64 [ 0, %539 ], [ %552, %540 ]
  %542 = phi i32 [ -1, %539 ], [ %551, %540 ]
  %543 = getelementptr inbounds i8, ptr %20, i64 %541
  %544 = load i8, ptr %543, align 1, !tbaa !15
  %545 = trunc i32 %542 to i8
  %546 = xor i8 %544, %545
  %547 = zext i8 %546 to i64
  %548 = getelementptr inbounds [256 x i32], ptr %18, i64 0, i64 %547
  %549 = load i32, ptr %548, align 4, !tbaa !9
  %550 = lshr i32 %542, 8
  %551 = xor i32 %549, %550
  %552 = add nuw i64 %541, 1
  %553 = icmp ne i64 %17, %552
  br i1 %553, label %540, label %554, !llvm.loop !21

554:                                              ; preds = %540
  %555 = phi i32 [ %551, %540 ]
  br i1 %423, label %556, label %590

556:                                              ; preds = %554
  br label %557

557:                                              ; preds = %557, %556
  %558 = phi i32 [ -1, %556 ], [ %583, %557 ]
  %559 = phi i64 [ 0, %556 ], [ %584, %557 ]
  %560 = getelementptr i8, ptr %20, i64 %559
  %561 = load i32, ptr %560, align 1
  %562 = xor i32 %561, %558
  %563 = and i32 %562, 255
  %564 = zext nneg i32 %563 to i64
  %565 = getelementptr inbounds [256 x i32], ptr %195, i64 0, i64 %564
  %566 = load i32, ptr %565, align 4, !tbaa !9
  %567 = lshr i32 %562, 8
  %568 = and i32 %567, 255
  %569 = zext nneg i32 %568 to i64
  %570 = getelementptr inbounds [256 x i32], ptr %196, i64 0, i64 %569
  %571 = load i32, ptr %570, align 4, !tbaa !9
  %572 = xor i32 %571, %566
  %573 = lshr i32 %562, 16
  %574 = and i32 %573, 255
  %575 = zext nneg i32 %574 to i64
  %576 = getelementptr [256 x i32], ptr %30, i64 0, i64 %575
  %577 = load i32, ptr %576, align 4, !tbaa !9
  %578 = xor i32 %572, %577
  %579 = lshr i32 %562, 24
  %580 = zext nneg i32 %579 to i64
  %581 = getelementptr inbounds [256 x i32], ptr %18, i64 0, i64 %580
  %582 = load i32, ptr %581, align 4, !tbaa !9
  %583 = xor i32 %578, %582
  %584 = add nuw i64 %559, 4
  %585 = add nuw i64 %584, 4
  %586 = icmp ule i64 %585, %17
  br i1 %586, label %557, label %587, !llvm.loop !22

587:                                              ; preds = %557
  %588 = phi i32 [ %583, %557 ]
  %589 = phi i64 [ %584, %557 ]
  br label %590

590:                                              ; preds = %587, %554
  %591 = phi i32 [ -1, %554 ], [ %588, %587 ]
  %592 = phi i64 [ 0, %554 ], [ %589, %587 ]
  %593 = xor i32 %555, -1
  %594 = icmp ult i64 %592, %17
  br i1 %594, label %595, label %613

595:                                              ; preds = %590
  br label %596

596:                                              ; preds = %596, %595
  %597 = phi i64 [ %592, %595 ], [ %609, %596 ]
  %598 = phi i32 [ %591, %595 ], [ %607, %596 ]
  %599 = getelementptr inbounds i8, ptr %20, i64 %597
  %600 = load i8, ptr %599, align 1, !tbaa !15
  %601 = trunc i32 %598 to i8
  %602 = xor i8 %600, %601
  %603 = zext i8 %602 to i64
  %604 = getelementptr inbounds [256 x i32], ptr %18, i64 0, i64 %603
  %605 = load i32, ptr %604, align 4, !tbaa !9
  %606 = lshr i32 %598, 8
  %607 = xor i32 %605, %606
  %608 = icmp ne i64 %597, %530
  %609 = add nuw i64 %597, 1
  br i1 %608, label %596, label %610, !llvm.loop !23

610:                                              ; preds = %596
  %611 = phi i32 [ %607, %596 ]
  %612 = xor i32 %611, -1
  br label %615

613:                                              ; preds = %590
  %614 = xor i32 %591, -1
  br label %615

615:                                              ; preds = %613, %610
  %616 = phi i32 [ %612, %610 ], [ %614, %613 ]
  br label %617

617:                                              ; preds = %691, %615
  %618 = phi i64 [ 0, %615 ], [ %689, %691 ]
  %619 = phi i32 [ 0, %615 ], [ %688, %691 ]
  %620 = phi i64 [ 1, %615 ], [ %695, %691 ]
  %621 = phi i64 [ %17, %615 ], [ %687, %691 ]
  %622 = sub i64 %621, %618
  %623 = icmp ugt i64 %620, %622
  %624 = sub i64 %17, %618
  %625 = select i1 %623, i64 %624, i64 %620
  %626 = getelementptr inbounds i8, ptr %20, i64 %618
  %627 = xor i32 %619, -1
  %628 = icmp ugt i64 %625, 3
  br i1 %628, label %629, label %663

629:                                              ; preds = %617
  br label %630

630:                                              ; preds = %630, %629
  %631 = phi i32 [ %627, %629 ], [ %656, %630 ]
  %632 = phi i64 [ 0, %629 ], [ %657, %630 ]
  %633 = getelementptr i8, ptr %626, i64 %632
  %634 = load i32, ptr %633, align 1
  %635 = xor i32 %634, %631
  %636 = and i32 %635, 255
  %637 = zext nneg i32 %636 to i64
  %638 = getelementptr inbounds [256 x i32], ptr %195, i64 0, i64 %637
  %639 = load i32, ptr %638, align 4, !tbaa !9
  %640 = lshr i32 %635, 8
  %641 = and i32 %640, 255
  %642 = zext nneg i32 %641 to i64
  %643 = getelementptr inbounds [256 x i32], ptr %196, i64 0, i64 %642
  %644 = load i32, ptr %643, align 4, !tbaa !9
  %645 = xor i32 %644, %639
  %646 = lshr i32 %635, 16
  %647 = and i32 %646, 255
  %648 = zext nneg i32 %647 to i64
  %649 = getelementptr [256 x i32], ptr %30, i64 0, i64 %648
  %650 = load i32, ptr %649, align 4, !tbaa !9
  %651 = xor i32 %645, %650
  %652 = lshr i32 %635, 24
  %653 = zext nneg i32 %652 to i64
  %654 = getelementptr inbounds [256 x i32], ptr %18, i64 0, i64 %653
  %655 = load i32, ptr %654, align 4, !tbaa !9
  %656 = xor i32 %651, %655
  %657 = add nuw i64 %632, 4
  %658 = add nuw i64 %657, 4
  %659 = icmp ule i64 %658, %625
  br i1 %659, label %630, label %660, !llvm.loop !22

660:                                              ; preds = %630
  %661 = phi i32 [ %656, %630 ]
  %662 = phi i64 [ %657, %630 ]
  br label %663

663:                                              ; preds = %660, %617
  %664 = phi i32 [ %627, %617 ], [ %661, %660 ]
  %665 = phi i64 [ 0, %617 ], [ %662, %660 ]
  %666 = icmp ult i64 %665, %625
  br i1 %666, label %667, label %685

667:                                              ; preds = %663
  %668 = add i64 %625, -1
  br label %669

669:                                              ; preds = %669, %667
  %670 = phi i64 [ %665, %667 ], [ %682, %669 ]
  %671 = phi i32 [ %664, %667 ], [ %680, %669 ]
  %672 = getelementptr inbounds i8, ptr %626, i64 %670
  %673 = load i8, ptr %672, align 1, !tbaa !15
  %674 = trunc i32 %671 to i8
  %675 = xor i8 %673, %674
  %676 = zext i8 %675 to i64
  %677 = getelementptr inbounds [256 x i32], ptr %18, i64 0, i64 %676
  %678 = load i32, ptr %677, align 4, !tbaa !9
  %679 = lshr i32 %671, 8
  %680 = xor i32 %678, %679
  %681 = icmp ne i64 %670, %668
  %682 = add nuw i64 %670, 1
  br i1 %681, label %669, label %683, !llvm.loop !23

683:                                              ; preds = %669
  %684 = phi i32 [ %680, %669 ]
  br label %685

685:                                              ; preds = %683, %663
  %686 = phi i32 [ %664, %663 ], [ %684, %683 ]
  %687 = select i1 %623, i64 %17, i64 %621
  %688 = xor i32 %686, -1
  %689 = add i64 %625, %618
  %690 = icmp ult i64 %689, %687
  br i1 %690, label %691, label %696, !llvm.loop !24

691:                                              ; preds = %685
  %692 = mul i64 %620, 3
  %693 = add i64 %692, 1
  %694 = icmp ugt i64 %693, 8192
  %695 = select i1 %694, i64 7, i64 %693
  br label %617

696:                                              ; preds = %685
  %697 = phi i32 [ %688, %685 ]
  br i1 %423, label %698, label %732

698:                                              ; preds = %696
  br label %699

699:                                              ; preds = %699, %698
  %700 = phi i32 [ -1, %698 ], [ %725, %699 ]
  %701 = phi i64 [ 0, %698 ], [ %726, %699 ]
  %702 = getelementptr i8, ptr %20, i64 %701
  %703 = load i32, ptr %702, align 1
  %704 = xor i32 %703, %700
  %705 = and i32 %704, 255
  %706 = zext nneg i32 %705 to i64
  %707 = getelementptr inbounds [256 x i32], ptr %323, i64 0, i64 %706
  %708 = load i32, ptr %707, align 4, !tbaa !9
  %709 = lshr i32 %704, 8
  %710 = and i32 %709, 255
  %711 = zext nneg i32 %710 to i64
  %712 = getelementptr inbounds [256 x i32], ptr %324, i64 0, i64 %711
  %713 = load i32, ptr %712, align 4, !tbaa !9
  %714 = xor i32 %713, %708
  %715 = lshr i32 %704, 16
  %716 = and i32 %715, 255
  %717 = zext nneg i32 %716 to i64
  %718 = getelementptr [256 x i32], ptr %85, i64 0, i64 %717
  %719 = load i32, ptr %718, align 4, !tbaa !9
  %720 = xor i32 %714, %719
  %721 = lshr i32 %704, 24
  %722 = zext nneg i32 %721 to i64
  %723 = getelementptr inbounds [256 x i32], ptr %19, i64 0, i64 %722
  %724 = load i32, ptr %723, align 4, !tbaa !9
  %725 = xor i32 %720, %724
  %726 = add nuw i64 %701, 4
  %727 = add nuw i64 %726, 4
  %728 = icmp ule i64 %727, %17
  br i1 %728, label %699, label %729, !llvm.loop !22

729:                                              ; preds = %699
  %730 = phi i32 [ %725, %699 ]
  %731 = phi i64 [ %726, %699 ]
  br label %732

732:                                              ; preds = %729, %696, %535
  %733 = phi i32 [ 0, %535 ], [ %697, %696 ], [ %697, %729 ]
  %734 = phi i32 [ 0, %535 ], [ %616, %696 ], [ %616, %729 ]
  %735 = phi i32 [ 0, %535 ], [ %593, %696 ], [ %593, %729 ]
  %736 = phi i32 [ -1, %535 ], [ -1, %696 ], [ %730, %729 ]
  %737 = phi i64 [ 0, %535 ], [ 0, %696 ], [ %731, %729 ]
  %738 = icmp ult i64 %737, %17
  br i1 %738, label %739, label %756

739:                                              ; preds = %732
  br label %740

740:                                              ; preds = %740, %739
  %741 = phi i64 [ %737, %739 ], [ %753, %740 ]
  %742 = phi i32 [ %736, %739 ], [ %751, %740 ]
  %743 = getelementptr inbounds i8, ptr %20, i64 %741
  %744 = load i8, ptr %743, align 1, !tbaa !15
  %745 = trunc i32 %742 to i8
  %746 = xor i8 %744, %745
  %747 = zext i8 %746 to i64
  %748 = getelementptr inbounds [256 x i32], ptr %19, i64 0, i64 %747
  %749 = load i32, ptr %748, align 4, !tbaa !9
  %750 = lshr i32 %742, 8
  %751 = xor i32 %749, %750
  %752 = icmp ne i64 %741, %530
  %753 = add nuw i64 %741, 1
  br i1 %752, label %740, label %754, !llvm.loop !23

754:                                              ; preds = %740
  %755 = phi i32 [ %751, %740 ]
  br label %756

756:                                              ; preds = %754, %732
  %757 = phi i32 [ %736, %732 ], [ %755, %754 ]
  br i1 %529, label %805, label %758

758:                                              ; preds = %756
  br label %759

759:                                              ; preds = %771, %758
  %760 = phi i64 [ 0, %758 ], [ %773, %771 ]
  %761 = phi i32 [ -1, %758 ], [ %772, %771 ]
  %762 = getelementptr inbounds i8, ptr %20, i64 %760
  %763 = load i8, ptr %762, align 1, !tbaa !15
  %764 = zext i8 %763 to i32
  %765 = xor i32 %764, %761
  %766 = and i32 %765, 1
  %767 = lshr i32 %765, 1
  %768 = icmp eq i32 %766, 0
  %769 = select i1 %768, i32 0, i32 -2097792136
  %770 = xor i32 %769, %767
  br label %775

771:                                              ; preds = %775
  %772 = phi i32 [ %782, %775 ]
  %773 = add nuw nsw i64 %760, 1
  %774 = icmp ne i64 %773, %527
  br i1 %774, label %759, label %785, !llvm.loop !16

775:                                              ; preds = %775, %759
  %776 = phi i32 [ %770, %759 ], [ %782, %775 ]
  %777 = phi i32 [ 7, %759 ], [ %783, %775 ]
  %778 = and i32 %776, 1
  %779 = lshr i32 %776, 1
  %780 = icmp eq i32 %778, 0
  %781 = select i1 %780, i32 0, i32 -2097792136
  %782 = xor i32 %781, %779
  %783 = add nsw i32 %777, -1
  %784 = icmp eq i32 %783, 0
  br i1 %784, label %771, label %775, !llvm.loop !17

785:                                              ; preds = %771
  %786 = phi i32 [ %772, %771 ]
  br label %791

787:                                              ; preds = %791
  %788 = phi i32 [ %802, %791 ]
  %789 = xor i32 %786, -1
  %790 = xor i32 %788, -1
  br label %805

791:                                              ; preds = %791, %785
  %792 = phi i64 [ 0, %785 ], [ %803, %791 ]
  %793 = phi i32 [ -1, %785 ], [ %802, %791 ]
  %794 = getelementptr inbounds i8, ptr %20, i64 %792
  %795 = load i8, ptr %794, align 1, !tbaa !15
  %796 = trunc i32 %793 to i8
  %797 = xor i8 %795, %796
  %798 = zext i8 %797 to i64
  %799 = getelementptr inbounds [256 x i32], ptr %19, i64 0, i64 %798
  %800 = load i32, ptr %799, align 4, !tbaa !9
  %801 = lshr i32 %793, 8
  %802 = xor i32 %800, %801
  %803 = add nuw nsw i64 %792, 1
  %804 = icmp ne i64 %527, %803
  br i1 %804, label %791, label %787, !llvm.loop !21

805:                                              ; preds = %756, %787
  %806 = phi i32 [ %790, %787 ], [ 0, %756 ]
  %807 = phi i32 [ %789, %787 ], [ 0, %756 ]
  %808 = xor i32 %757, -1
  %809 = icmp ne i32 %735, %734
  %810 = icmp ne i32 %735, %733
  %811 = select i1 %809, i1 true, i1 %810
  %812 = select i1 %811, i32 0, i32 %536
  %813 = icmp eq i32 %807, %806
  %814 = select i1 %813, i32 %812, i32 0
  %815 = tail call i32 @llvm.fshl.i32(i32 %537, i32 %537, i32 5)
  %816 = mul i32 %808, -1640531535
  %817 = xor i32 %735, %815
  %818 = xor i32 %817, %816
  %819 = lshr i32 %735, 3
  %820 = trunc i32 %819 to i8
  %821 = urem i64 %538, %17
  %822 = getelementptr inbounds i8, ptr %20, i64 %821
  %823 = load i8, ptr %822, align 1, !tbaa !15
  %824 = xor i8 %823, %820
  store i8 %824, ptr %822, align 1, !tbaa !15
  %825 = add nuw nsw i64 %538, 7919
  %826 = icmp ne i64 %825, 31676
  br i1 %826, label %535, label %531, !llvm.loop !25

827:                                              ; preds = %531
  call fastcc void @9(ptr %3) #10
  br label %830

828:                                              ; preds = %531
  %829 = tail call i32 (ptr, ...) @printf(ptr noundef nonnull dereferenceable(1) @5, i32 noundef %533) #12
  tail call void @free(ptr noundef %20) #12
  tail call void @free(ptr noundef %19) #12
  tail call void @free(ptr noundef %18) #12
  store i32 0, ptr %3, align 4
  br label %830

830:                                              ; preds = %11, %421, %827, %26, %828
  %831 = load i32, ptr %3, align 4
  ret i32 %831
}

; Function Attrs: inlinehint mustprogress nofree nounwind willreturn memory(read) uwtable
declare i32 @atoi(ptr nocapture noundef nonnull) local_unnamed_addr #1

; Function Attrs: mustprogress nofree nounwind willreturn allockind("alloc,uninitialized") allocsize(0) memory(inaccessiblemem: readwrite)
declare noalias noundef ptr @malloc(i64 noundef) local_unnamed_addr #2

; Function Attrs: nofree nounwind
declare noundef i32 @printf(ptr nocapture noundef readonly, ...) local_unnamed_addr #3

; Function Attrs: mustprogress nounwind willreturn allockind("free") memory(argmem: readwrite, inaccessiblemem: readwrite)
declare void @free(ptr allocptr nocapture noundef) local_unnamed_addr #4

; Function Attrs: nocallback nofree nounwind willreturn memory(argmem: write)
declare void @llvm.memset.p0.i64(ptr nocapture writeonly, i8, i64, i1 immarg) #5

; Function Attrs: nofree nounwind
declare noundef i64 @fwrite(ptr nocapture noundef, i64 noundef, i64 noundef, ptr nocapture noundef) local_unnamed_addr #6

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.fshl.i32(i32, i32, i32) #7

; Function Attrs: cold minsize nofree nounwind uwtable
define internal fastcc void @8(ptr nocapture writeonly %0) unnamed_addr #8 {
  %2 = load ptr, ptr @stderr, align 8, !tbaa !0
  %3 = tail call i64 @fwrite(ptr nonnull @2, i64 21, i64 1, ptr %2) #13
  store i32 1, ptr %0, align 4
  ret void
}

; Function Attrs: cold minsize nofree nounwind uwtable
define internal fastcc void @9(ptr nocapture writeonly %0) unnamed_addr #8 {
  %2 = load ptr, ptr @stderr, align 8, !tbaa !0
  %3 = tail call i64 @fwrite(ptr nonnull @4, i64 32, i64 1, ptr %2) #13
  store i32 1, ptr %0, align 4
  ret void
}

; Function Attrs: cold minsize nofree nounwind uwtable
define internal fastcc void @10(ptr nocapture writeonly %0) unnamed_addr #8 {
  %2 = load ptr, ptr @stderr, align 8, !tbaa !0
  %3 = tail call i64 @fwrite(ptr nonnull @3, i64 34, i64 1, ptr %2) #13
  store i32 1, ptr %0, align 4
  ret void
}

; Function Attrs: cold minsize nofree nounwind uwtable
define internal fastcc void @11(ptr nocapture writeonly %0) unnamed_addr #8 {
  %2 = load ptr, ptr @stderr, align 8, !tbaa !0
  %3 = tail call i64 @fwrite(ptr nonnull @0, i64 33, i64 1, ptr %2) #13
  store i32 1, ptr %0, align 4
  ret void
}

attributes #0 = { nounwind uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { inlinehint mustprogress nofree nounwind willreturn memory(read) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #2 = { mustprogress nofree nounwind willreturn allockind("alloc,uninitialized") allocsize(0) memory(inaccessiblemem: readwrite) "alloc-family"="malloc" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { nofree nounwind "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #4 = { mustprogress nounwind willreturn allockind("free") memory(argmem: readwrite, inaccessiblemem: readwrite) "alloc-family"="malloc" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #5 = { nocallback nofree nounwind willreturn memory(argmem: write) }
attributes #6 = { nofree nounwind }
attributes #7 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #8 = { cold minsize nofree nounwind uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #9 = { nounwind willreturn memory(read) }
attributes #10 = { noinline }
attributes #11 = { nounwind allocsize(0) }
attributes #12 = { nounwind }
attributes #13 = { cold }

!0 = !{!1, !1, i64 0}
!1 = !{!"any pointer", !2, i64 0}
!2 = !{!"omnipotent char", !3, i64 0}
!3 = !{!"Simple C/C++ TBAA"}
!4 = !{!5, !5, i64 0}
!5 = !{!"long", !2, i64 0}
!6 = !{!7, !8, i64 4096}
!7 = !{!"crc_tables", !2, i64 0, !8, i64 4096}
!8 = !{!"int", !2, i64 0}
!9 = !{!8, !8, i64 0}
!10 = distinct !{!10, !11, !12}
!11 = !{!"llvm.loop.mustprogress"}
!12 = !{!"llvm.loop.unroll.disable"}
!13 = distinct !{!13, !11, !12}
!14 = distinct !{!14, !11, !12}
!15 = !{!2, !2, i64 0}
!16 = distinct !{!16, !11, !12}
!17 = distinct !{!17, !11, !12}
!18 = distinct !{!18, !11, !12}
!19 = distinct !{!19, !11, !12}
!20 = distinct !{!20, !11, !12}
!21 = distinct !{!21, !11, !12}
!22 = distinct !{!22, !11, !12}
!23 = distinct !{!23, !11, !12}
!24 = distinct !{!24, !11, !12}
!25 = distinct !{!25, !11, !12}
