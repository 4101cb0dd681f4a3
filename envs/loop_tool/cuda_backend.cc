// The CUDA backend: PTX from LLVM's NVPTX target, loaded and launched through the CUDA driver
// API. The driver is opened with dlopen("libcuda.so.1") on first use, so the build and every
// test without a GPU need neither the toolkit nor the driver; the few entry points used are
// declared here with the driver's stable C ABI.
#include <dlfcn.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <mutex>

#include "engine/space.h"
#include "envs/loop_tool/backend.h"
#include "envs/loop_tool/lowering.h"

namespace compiler_gym::loop_tool_env {
namespace {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;
using CUevent = struct CUevent_st*;
constexpr int kAttrComputeCapabilityMajor = 75;
constexpr int kAttrComputeCapabilityMinor = 76;

struct CudaApi {
  Status status;
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGetCount)(int*);
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuModuleLoadData)(CUmodule*, const void*);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, CUstream, void**, void**);
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t);
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t);
  CUresult (*cuMemsetD32)(CUdeviceptr, unsigned, size_t);
  CUresult (*cuMemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
  CUresult (*cuEventCreate)(CUevent*, unsigned);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent);
  CUresult (*cuGetErrorString)(CUresult, const char**);
  CUcontext context = nullptr;
  std::string arch;
};

template <typename F>
bool Load(void* lib, const char* name, F& fn) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  return fn != nullptr;
}

const CudaApi& Api() {
  static const CudaApi* api = [] {
    auto* a = new CudaApi();
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      a->status = Unavailable("the CUDA backend needs an NVIDIA GPU and its driver: " +
                              std::string(dlerror()));
      return a;
    }
    bool ok =
        Load(lib, "cuInit", a->cuInit) && Load(lib, "cuDeviceGetCount", a->cuDeviceGetCount) &&
        Load(lib, "cuDeviceGet", a->cuDeviceGet) &&
        Load(lib, "cuDeviceGetAttribute", a->cuDeviceGetAttribute) &&
        Load(lib, "cuDevicePrimaryCtxRetain", a->cuDevicePrimaryCtxRetain) &&
        Load(lib, "cuCtxSetCurrent", a->cuCtxSetCurrent) &&
        Load(lib, "cuCtxSynchronize", a->cuCtxSynchronize) &&
        Load(lib, "cuModuleLoadData", a->cuModuleLoadData) &&
        Load(lib, "cuModuleUnload", a->cuModuleUnload) &&
        Load(lib, "cuModuleGetFunction", a->cuModuleGetFunction) &&
        Load(lib, "cuLaunchKernel", a->cuLaunchKernel) &&
        Load(lib, "cuMemAlloc_v2", a->cuMemAlloc) && Load(lib, "cuMemFree_v2", a->cuMemFree) &&
        Load(lib, "cuMemcpyHtoD_v2", a->cuMemcpyHtoD) &&
        Load(lib, "cuMemcpyDtoH_v2", a->cuMemcpyDtoH) &&
        Load(lib, "cuMemsetD32_v2", a->cuMemsetD32) &&
        Load(lib, "cuMemcpyDtoD_v2", a->cuMemcpyDtoD) &&
        Load(lib, "cuEventCreate", a->cuEventCreate) &&
        Load(lib, "cuEventDestroy_v2", a->cuEventDestroy) &&
        Load(lib, "cuEventRecord", a->cuEventRecord) &&
        Load(lib, "cuEventSynchronize", a->cuEventSynchronize) &&
        Load(lib, "cuEventElapsedTime", a->cuEventElapsedTime) &&
        Load(lib, "cuGetErrorString", a->cuGetErrorString);
    if (!ok) {
      a->status = Unavailable("the CUDA driver lacks an entry point this backend uses");
      return a;
    }
    int count = 0;
    CUdevice device = 0;
    int major = 0, minor = 0;
    if (a->cuInit(0) != 0 || a->cuDeviceGetCount(&count) != 0 || count == 0 ||
        a->cuDeviceGet(&device, 0) != 0 ||
        a->cuDeviceGetAttribute(&major, kAttrComputeCapabilityMajor, device) != 0 ||
        a->cuDeviceGetAttribute(&minor, kAttrComputeCapabilityMinor, device) != 0 ||
        a->cuDevicePrimaryCtxRetain(&a->context, device) != 0) {
      a->status = Unavailable("the CUDA driver loaded but found no usable GPU");
      return a;
    }
    // LLVM 19's NVPTX emits up to sm_90; newer GPUs JIT-compile that PTX.
    const int capability = std::min(major * 10 + minor, 90);
    a->arch = "sm_" + std::to_string(capability);
    return a;
  }();
  return *api;
}

Status Check(CUresult result, const char* what) {
  if (result == 0) return Status::Ok();
  const char* text = "unknown error";
  Api().cuGetErrorString(result, &text);
  return Internal(std::string(what) + ": CUDA error " + std::to_string(result) + " (" + text + ")");
}

Status MakeCurrent() {
  RETURN_IF_ERROR(Api().status);
  return Check(Api().cuCtxSetCurrent(Api().context), "cuCtxSetCurrent");
}

void InitializeNvptx() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

// The median seconds of `repetitions` (at least one) runs of `work` on the default stream, each
// between two CUDA events, after `warmup` untimed runs.
StatusOr<double> MedianEventSeconds(int warmup, int repetitions,
                                    const std::function<Status()>& work) {
  for (int i = 0; i < warmup; ++i) RETURN_IF_ERROR(work());
  CUevent start = nullptr, stop = nullptr;
  RETURN_IF_ERROR(Check(Api().cuEventCreate(&start, 0), "cuEventCreate"));
  Status status = Check(Api().cuEventCreate(&stop, 0), "cuEventCreate");
  std::vector<double> samples;
  for (int r = 0; r < std::max(repetitions, 1) && status.ok(); ++r) {
    float ms = 0;
    status = Check(Api().cuEventRecord(start, nullptr), "cuEventRecord");
    if (status.ok()) status = work();
    if (status.ok()) status = Check(Api().cuEventRecord(stop, nullptr), "cuEventRecord");
    if (status.ok()) status = Check(Api().cuEventSynchronize(stop), "the timed work");
    if (status.ok()) status = Check(Api().cuEventElapsedTime(&ms, start, stop), "elapsed");
    samples.push_back(ms * 1e-3);
  }
  Api().cuEventDestroy(start);
  if (stop != nullptr) Api().cuEventDestroy(stop);
  RETURN_IF_ERROR(status);
  return Median(std::move(samples));
}

struct DeviceBuffers {
  std::vector<CUdeviceptr> pointers;
  ~DeviceBuffers() {
    if (!MakeCurrent().ok()) return;
    for (CUdeviceptr p : pointers) Api().cuMemFree(p);
  }
};

class CudaKernel final : public Kernel {
 public:
  CudaKernel(CUmodule module, std::vector<CUfunction> functions, KernelPlan plan)
      : module_(module), functions_(std::move(functions)), plan_(std::move(plan)) {}
  ~CudaKernel() override {
    if (MakeCurrent().ok()) Api().cuModuleUnload(module_);
  }

  Status RunOnce(ProgramData& data, std::vector<float>& output) override {
    RETURN_IF_ERROR(MakeCurrent());
    ASSIGN_OR_RETURN(DeviceBuffers * buffers, Buffers(data));
    // Poisoned first (a quiet NaN): the output buffer is shared by every kernel of the program.
    for (size_t t = 0; t < data.program.tensors.size(); ++t) {
      if (data.program.tensors[t].input) continue;
      RETURN_IF_ERROR(
          Check(Api().cuMemsetD32(buffers->pointers[t], 0x7fc00000u, plan_.buffers[t].elements),
                "cuMemsetD32"));
    }
    RETURN_IF_ERROR(Launch(*buffers));
    ++runs;
    RETURN_IF_ERROR(Check(Api().cuCtxSynchronize(), "kernel"));
    for (size_t t = 0; t < data.program.tensors.size(); ++t) {
      if (data.program.tensors[t].input) continue;
      output.resize(plan_.buffers[t].elements);
      RETURN_IF_ERROR(Check(
          Api().cuMemcpyDtoH(output.data(), buffers->pointers[t], output.size() * sizeof(float)),
          "cuMemcpyDtoH"));
    }
    return Status::Ok();
  }

  StatusOr<double> Time(ProgramData& data, const TimingOptions& options) override {
    RETURN_IF_ERROR(MakeCurrent());
    ASSIGN_OR_RETURN(DeviceBuffers * buffers, Buffers(data));
    runs += options.warmup + std::max(options.repetitions, 1);
    return MedianEventSeconds(options.warmup, options.repetitions,
                              [&] { return Launch(*buffers); });
  }

 private:
  StatusOr<DeviceBuffers*> Buffers(ProgramData& data) {
    if (!data.device_buffers) {
      auto buffers = std::make_shared<DeviceBuffers>();
      size_t input = 0;
      for (const Buffer& b : plan_.buffers) {
        CUdeviceptr p = 0;
        RETURN_IF_ERROR(
            Check(Api().cuMemAlloc(&p, std::max<int64_t>(b.elements, 1) * 4), "cuMemAlloc"));
        buffers->pointers.push_back(p);
        if (b.tensor >= 0 && data.program.tensors[b.tensor].input) {
          const std::vector<float>& values = data.inputs[input++];
          RETURN_IF_ERROR(
              Check(Api().cuMemcpyHtoD(p, values.data(), values.size() * 4), "cuMemcpyHtoD"));
        }
      }
      data.device_buffers = buffers;
    }
    return static_cast<DeviceBuffers*>(data.device_buffers.get());
  }

  Status Launch(DeviceBuffers& buffers) {
    for (size_t i = 0; i < plan_.buffers.size(); ++i) {
      if (plan_.buffers[i].tensor >= 0) continue;
      unsigned bits = 0;
      std::memcpy(&bits, &plan_.buffers[i].init, 4);
      RETURN_IF_ERROR(Check(Api().cuMemsetD32(buffers.pointers[i], bits, plan_.buffers[i].elements),
                            "cuMemsetD32"));
    }
    std::vector<void*> params;
    for (CUdeviceptr& p : buffers.pointers) params.push_back(&p);
    for (size_t i = 0; i < functions_.size(); ++i) {
      const int64_t threads = plan_.phases[i].threads;
      const int64_t block = std::min<int64_t>(threads, 256);
      const int64_t grid = (threads + block - 1) / block;
      RETURN_IF_ERROR(Check(Api().cuLaunchKernel(functions_[i], static_cast<unsigned>(grid), 1, 1,
                                                 static_cast<unsigned>(block), 1, 1, 0, nullptr,
                                                 params.data(), nullptr),
                            "cuLaunchKernel"));
    }
    return Status::Ok();
  }

  CUmodule module_;
  std::vector<CUfunction> functions_;
  KernelPlan plan_;
};

StatusOr<std::string> EmitPtxForPlan(const Program& program, const std::vector<Loop>& loops,
                                     const KernelPlan& plan, const std::string& arch) {
  InitializeNvptx();
  const std::string triple = "nvptx64-nvidia-cuda";
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target) return Internal("no NVPTX target in this LLVM: " + error);
  // Asked before the target machine is made, which would only warn on stderr and go on.
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(target->createMCSubtargetInfo(triple, "", ""));
  if (!subtarget || !subtarget->isCPUStringValid(arch)) {
    return InvalidArgument("unknown NVPTX architecture '" + arch + "' (e.g. sm_80, sm_90)");
  }
  std::unique_ptr<llvm::TargetMachine> tm(
      target->createTargetMachine(triple, arch, "", llvm::TargetOptions(), std::nullopt,
                                  std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!tm) return Internal("no NVPTX target machine for " + arch);
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module =
      LowerOptimized(program, loops, plan, Target::kNvptx, *tm, context);
  std::string ptx;
  {
    llvm::raw_string_ostream os(ptx);
    llvm::buffer_ostream out(os);
    llvm::legacy::PassManager pm;
    if (tm->addPassesToEmitFile(pm, out, nullptr, llvm::CodeGenFileType::AssemblyFile)) {
      return Internal("NVPTX cannot emit PTX for " + arch);
    }
    pm.run(*module);
  }
  return ptx;
}

}  // namespace

Status CudaAvailable() { return Api().status; }

StatusOr<double> CudaCopySeconds(int64_t bytes, const TimingOptions& options) {
  RETURN_IF_ERROR(MakeCurrent());
  DeviceBuffers buffers;
  for (int i = 0; i < 2; ++i) {
    CUdeviceptr p = 0;
    RETURN_IF_ERROR(Check(Api().cuMemAlloc(&p, bytes), "cuMemAlloc"));
    buffers.pointers.push_back(p);
  }
  RETURN_IF_ERROR(Check(Api().cuMemsetD32(buffers.pointers[0], 0x3f800000u, bytes / 4), "memset"));
  return MedianEventSeconds(options.warmup, options.repetitions, [&] {
    return Check(Api().cuMemcpyDtoD(buffers.pointers[1], buffers.pointers[0], bytes), "copy");
  });
}

StatusOr<std::string> CudaArch() {
  RETURN_IF_ERROR(Api().status);
  return Api().arch;
}

StatusOr<std::string> EmitPtx(const Program& program, const std::vector<Loop>& loops,
                              const std::string& arch) {
  return EmitPtxForPlan(program, loops, PlanKernels(program, loops, Target::kNvptx), arch);
}

StatusOr<std::shared_ptr<Kernel>> CompileCuda(const Program& program,
                                              const std::vector<Loop>& loops) {
  ASSIGN_OR_RETURN(std::string arch, CudaArch());
  KernelPlan plan = PlanKernels(program, loops, Target::kNvptx);
  for (const Phase& phase : plan.phases) {
    if ((phase.threads + 255) / 256 > 0x7fffffff) {
      return InvalidArgument("the schedule needs more CUDA blocks than a grid holds");
    }
  }
  ASSIGN_OR_RETURN(std::string ptx, EmitPtxForPlan(program, loops, plan, arch));
  RETURN_IF_ERROR(MakeCurrent());
  CUmodule module = nullptr;
  const auto load_start = std::chrono::steady_clock::now();
  RETURN_IF_ERROR(Check(Api().cuModuleLoadData(&module, ptx.c_str()), "loading the PTX"));
  AccountModuleLoad(SecondsSince(load_start));
  std::vector<CUfunction> functions;
  for (size_t i = 0; i < plan.phases.size(); ++i) {
    CUfunction f = nullptr;
    const std::string name = "phase" + std::to_string(i);
    if (Status s = Check(Api().cuModuleGetFunction(&f, module, name.c_str()), "kernel lookup");
        !s.ok()) {
      Api().cuModuleUnload(module);
      return s;
    }
    functions.push_back(f);
  }
  return std::shared_ptr<Kernel>(
      std::make_shared<CudaKernel>(module, std::move(functions), std::move(plan)));
}

}  // namespace compiler_gym::loop_tool_env
