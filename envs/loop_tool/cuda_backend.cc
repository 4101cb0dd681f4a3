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
#include <llvm/Support/xxhash.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <mutex>

#include "engine/sandbox.h"
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
  // For the first run's check on the device, made on the program's first check: the
  // reference's output and errors, and where the check leaves the first wrong element's index.
  CUdeviceptr reference = 0, error = 0, first_wrong = 0;
  ~DeviceBuffers() {
    if (!MakeCurrent().ok()) return;
    for (CUdeviceptr p : pointers) Api().cuMemFree(p);
    for (CUdeviceptr p : {reference, error, first_wrong}) {
      if (p != 0) Api().cuMemFree(p);
    }
  }
};

// The first run's check on the GPU, so that a new kernel's 2^26-element output is not copied
// to the host (tens of milliseconds over PCIe, more than a timed measurement): each thread
// walks the elements grid-stride and, where !(|got - want| <= tol * error) in double precision
// (CheckOutput's test on the host, NaN included), takes the smallest such index with an atomic
// min. Hand-written PTX after the .version and .target lines LLVM emits for the device's
// kernels (what this driver already loads); the explicit .rn roundings keep the arithmetic
// from being contracted into an fma.
constexpr const char* kCheckPtx = R"(.address_size 64

.visible .entry cg_check_output(.param .u64 got_p, .param .u64 want_p, .param .u64 error_p,
                                .param .f64 tol_p, .param .u64 n_p, .param .u64 first_p)
{
  .reg .pred %p<3>;
  .reg .b32 %r<5>;
  .reg .b64 %rd<14>;
  .reg .f32 %f<4>;
  .reg .f64 %fd<7>;

  ld.param.u64 %rd1, [got_p];
  ld.param.u64 %rd2, [want_p];
  ld.param.u64 %rd3, [error_p];
  ld.param.f64 %fd1, [tol_p];
  ld.param.u64 %rd4, [n_p];
  ld.param.u64 %rd5, [first_p];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  cvta.to.global.u64 %rd3, %rd3;
  cvta.to.global.u64 %rd5, %rd5;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mov.u32 %r4, %nctaid.x;
  mul.wide.u32 %rd6, %r1, %r2;
  cvt.u64.u32 %rd7, %r3;
  add.u64 %rd6, %rd6, %rd7;
  mul.wide.u32 %rd8, %r4, %r2;
$L_loop:
  setp.ge.u64 %p1, %rd6, %rd4;
  @%p1 bra $L_done;
  shl.b64 %rd9, %rd6, 2;
  add.u64 %rd10, %rd1, %rd9;
  ld.global.f32 %f1, [%rd10];
  add.u64 %rd11, %rd2, %rd9;
  ld.global.nc.f32 %f2, [%rd11];
  add.u64 %rd12, %rd3, %rd9;
  ld.global.nc.f32 %f3, [%rd12];
  cvt.f64.f32 %fd2, %f1;
  cvt.f64.f32 %fd3, %f2;
  sub.rn.f64 %fd4, %fd2, %fd3;
  abs.f64 %fd5, %fd4;
  cvt.f64.f32 %fd6, %f3;
  mul.rn.f64 %fd6, %fd6, %fd1;
  setp.le.f64 %p2, %fd5, %fd6;
  @%p2 bra $L_next;
  atom.global.min.u64 %rd13, [%rd5], %rd6;
$L_next:
  add.u64 %rd6, %rd6, %rd8;
  bra.uni $L_loop;
$L_done:
  ret;
}
)";

}  // namespace

StatusOr<std::string> CudaCheckPtx(const std::string& arch) {
  ASSIGN_OR_RETURN(const Program program, MakeProgram("add/1"));
  ASSIGN_OR_RETURN(const std::string kernel,
                   EmitPtx(program, InitialSchedule(program).loops, arch));
  std::string header;
  for (const char* directive : {".version ", ".target "}) {
    const size_t at = kernel.find(std::string("\n") + directive);
    if (at == std::string::npos) return Internal("NVPTX emitted no " + std::string(directive));
    header += kernel.substr(at + 1, kernel.find('\n', at + 1) - at);
  }
  return header + kCheckPtx;
}

namespace {

// The check's function, loaded into the context on first use (an error stays one).
StatusOr<CUfunction> CheckFunction() {
  static std::mutex mu;
  static CUfunction function = nullptr;
  static Status status;
  std::lock_guard lock(mu);
  if (function == nullptr && status.ok()) {
    CUmodule module = nullptr;
    StatusOr<std::string> ptx = CudaCheckPtx(Api().arch);
    status = ptx.status();
    if (status.ok()) {
      status = Check(Api().cuModuleLoadData(&module, ptx->c_str()), "loading the output check");
    }
    if (status.ok()) {
      status = Check(Api().cuModuleGetFunction(&function, module, "cg_check_output"),
                     "the output check's lookup");
    }
    if (!status.ok()) {
      std::fprintf(stderr, "loop_tool: new kernels are checked on the host: %s\n",
                   status.ToString().c_str());
    }
  }
  RETURN_IF_ERROR(status);
  return function;
}

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

  // Compared on the device: only the first wrong element's index (and then its value) comes
  // back. Where the check kernel does not load, on the host as before (a warning says so).
  StatusOr<double> RunChecked(ProgramData& data, const Reference& reference,
                              std::vector<float>& scratch) override {
    RETURN_IF_ERROR(MakeCurrent());
    const StatusOr<CUfunction> check = CheckFunction();
    if (!check.ok()) return Kernel::RunChecked(data, reference, scratch);
    ASSIGN_OR_RETURN(DeviceBuffers * buffers, Buffers(data));
    const size_t t = OutputTensor(data.program);
    const uint64_t n = static_cast<uint64_t>(plan_.buffers[t].elements);
    if (reference.output.size() != n || reference.error.size() != n) {
      return Internal("the reference does not match the kernel's output");
    }
    RETURN_IF_ERROR(UploadReference(*buffers, reference));
    CUdeviceptr output = buffers->pointers[t];
    RETURN_IF_ERROR(Check(Api().cuMemsetD32(output, 0x7fc00000u, n), "cuMemsetD32"));
    const auto start = std::chrono::steady_clock::now();
    RETURN_IF_ERROR(Launch(*buffers));
    ++runs;
    RETURN_IF_ERROR(Check(Api().cuCtxSynchronize(), "kernel"));
    const double seconds = SecondsSince(start);

    RETURN_IF_ERROR(Check(Api().cuMemcpyHtoD(buffers->first_wrong, &n, sizeof(n)), "cuMemcpyHtoD"));
    double tol = kErrorsAllowed;
    uint64_t size = n;
    std::vector<void*> params = {&output, &buffers->reference,  &buffers->error, &tol,
                                 &size,   &buffers->first_wrong};
    const uint64_t blocks = std::clamp<uint64_t>((n + 255) / 256, 1, 1 << 16);
    RETURN_IF_ERROR(Check(Api().cuLaunchKernel(*check, static_cast<unsigned>(blocks), 1, 1, 256, 1,
                                               1, 0, nullptr, params.data(), nullptr),
                          "the output check"));
    uint64_t first = n;
    RETURN_IF_ERROR(Check(Api().cuMemcpyDtoH(&first, buffers->first_wrong, sizeof(first)),
                          "the output check's result"));
    if (first >= n) return seconds;
    float got = 0;
    RETURN_IF_ERROR(Check(Api().cuMemcpyDtoH(&got, output + first * sizeof(float), sizeof(got)),
                          "cuMemcpyDtoH"));
    return WrongOutputAt(reference, first, got);
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

  // The reference on the device, once per program (its data's buffers hold it).
  static Status UploadReference(DeviceBuffers& buffers, const Reference& reference) {
    if (buffers.first_wrong != 0) return Status::Ok();
    const size_t bytes = reference.output.size() * sizeof(float);
    CUdeviceptr values = 0, errors = 0, first = 0;
    Status status = Check(Api().cuMemAlloc(&values, std::max<size_t>(bytes, 4)), "cuMemAlloc");
    if (status.ok()) {
      status = Check(Api().cuMemAlloc(&errors, std::max<size_t>(bytes, 4)), "cuMemAlloc");
    }
    if (status.ok()) status = Check(Api().cuMemAlloc(&first, sizeof(uint64_t)), "cuMemAlloc");
    if (status.ok()) {
      status = Check(Api().cuMemcpyHtoD(values, reference.output.data(), bytes), "cuMemcpyHtoD");
    }
    if (status.ok()) {
      status = Check(Api().cuMemcpyHtoD(errors, reference.error.data(), bytes), "cuMemcpyHtoD");
    }
    if (!status.ok()) {
      for (CUdeviceptr p : {values, errors, first}) {
        if (p != 0) Api().cuMemFree(p);
      }
      return status;
    }
    buffers.reference = values;
    buffers.error = errors;
    buffers.first_wrong = first;
    return Status::Ok();
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

Status CudaOutputCheckLoaded() {
  RETURN_IF_ERROR(MakeCurrent());
  return CheckFunction().status();
}

StatusOr<std::string> CudaArch() {
  RETURN_IF_ERROR(Api().status);
  return Api().arch;
}

StatusOr<std::string> EmitPtx(const Program& program, const std::vector<Loop>& loops,
                              const std::string& arch) {
  return EmitPtxForPlan(program, loops, PlanKernels(program, loops, Target::kNvptx), arch);
}

StatusOr<std::string> AssemblePtx(const std::string& ptx, const std::string& arch,
                                  const std::string& ptxas) {
  ASSIGN_OR_RETURN(const std::string dir, MakeTempDir("loop_tool-ptxas"));
  const std::string source = dir + "/kernel.ptx", binary = dir + "/kernel.cubin";
  StatusOr<std::string> cubin = [&]() -> StatusOr<std::string> {
    RETURN_IF_ERROR(WriteFile(source, ptx));
    const SandboxLimits limits{.timeout_seconds = 60};
    ASSIGN_OR_RETURN(
        ProcessResult r,
        RunSandboxed({ptxas, "-arch=" + arch, "-O3", source, "-o", binary}, limits, dir));
    if (!r.ok()) return Internal("ptxas " + r.Describe(limits) + ": " + r.stderr_text);
    return ReadFile(binary);
  }();
  RemoveTree(dir);
  return cubin;
}

StatusOr<std::shared_ptr<Kernel>> CompileCuda(const Program& program,
                                              const std::vector<Loop>& loops,
                                              const std::string& ptxas) {
  ASSIGN_OR_RETURN(std::string arch, CudaArch());
  KernelPlan plan = PlanKernels(program, loops, Target::kNvptx);
  for (const Phase& phase : plan.phases) {
    if ((phase.threads + 255) / 256 > 0x7fffffff) {
      return InvalidArgument("the schedule needs more CUDA blocks than a grid holds");
    }
  }
  ASSIGN_OR_RETURN(std::string ptx, EmitPtxForPlan(program, loops, plan, arch));
  std::string cubin;  // empty: the driver assembles the PTX
  if (!ptxas.empty()) {
    ASSIGN_OR_RETURN(cubin, AssemblePtx(ptx, arch, ptxas));
  }
  RETURN_IF_ERROR(MakeCurrent());
  CUmodule module = nullptr;
  const auto load_start = std::chrono::steady_clock::now();
  RETURN_IF_ERROR(Check(Api().cuModuleLoadData(&module, cubin.empty() ? ptx.c_str() : cubin.data()),
                        "loading the PTX"));
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
  auto kernel = std::make_shared<CudaKernel>(module, std::move(functions), std::move(plan));
  kernel->code_hash = llvm::xxh3_64bits(ptx);  // the driver's JIT is deterministic in its PTX
  return std::shared_ptr<Kernel>(std::move(kernel));
}

}  // namespace compiler_gym::loop_tool_env
