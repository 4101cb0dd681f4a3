// The emitter that lowers a program's phases to LLVM IR, the plan of kernels per target, and the
// optimization pipeline (with a retry without unrolling where a module grows too large).
#include "envs/loop_tool/lowering.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Target/TargetMachine.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace compiler_gym::loop_tool_env {
namespace {

bool Contains(const std::vector<int>& v, int x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// How many elements of a variable remain to be covered at a loop: a constant where the
// generator knows it, else a value computed at run time (inside a tail).
struct Limit {
  int64_t constant = 0;
  llvm::Value* value = nullptr;
};

class Emitter {
 public:
  Emitter(const Program& program, const std::vector<Loop>& loops, const KernelPlan& plan,
          Target target, llvm::Module& module)
      : p_(program),
        loops_(loops),
        plan_(plan),
        target_(target),
        m_(module),
        ctx_(module.getContext()),
        b_(ctx_) {
    i64_ = llvm::Type::getInt64Ty(ctx_);
    f32_ = llvm::Type::getFloatTy(ctx_);
    ptr_ = llvm::PointerType::get(ctx_, 0);
    llvm::FastMathFlags fmf;
    fmf.setAllowReassoc();
    fmf.setAllowContract();
    b_.setFastMathFlags(fmf);
  }

  void EmitPhase(int index) {
    const Phase& phase = plan_.phases[index];
    const int num_buffers = static_cast<int>(plan_.buffers.size());
    std::vector<llvm::Type*> params(num_buffers, ptr_);
    if (target_ == Target::kCpu) {
      params.push_back(i64_);
      params.push_back(i64_);
    }
    auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx_), params, false);
    const std::string name = "phase" + std::to_string(index);
    llvm::Function* body = llvm::Function::Create(
        type,
        target_ == Target::kCpu ? llvm::Function::InternalLinkage : llvm::Function::ExternalLinkage,
        target_ == Target::kCpu ? name + ".body" : name, m_);
    for (int i = 0; i < num_buffers; ++i) body->addParamAttr(i, llvm::Attribute::NoAlias);
    if (target_ == Target::kNvptx) {
      // cuMemAlloc returns 256-byte aligned memory; saying so lets NVPTX's load-store vectorizer
      // merge a thread's consecutive elements into 128-bit accesses.
      for (int i = 0; i < num_buffers; ++i) {
        body->addParamAttr(i, llvm::Attribute::getWithAlignment(ctx_, llvm::Align(256)));
      }
    }
    body->addFnAttr(llvm::Attribute::NoUnwind);
    if (target_ == Target::kCpu) {
      body->addFnAttr(llvm::Attribute::AlwaysInline);
      EmitCpuEntry(name, body);
    } else {
      llvm::NamedMDNode* annotations = m_.getOrInsertNamedMetadata("nvvm.annotations");
      llvm::Metadata* kernel[] = {llvm::ValueAsMetadata::get(body),
                                  llvm::MDString::get(ctx_, "kernel"),
                                  llvm::ValueAsMetadata::get(b_.getInt32(1))};
      annotations->addOperand(llvm::MDNode::get(ctx_, kernel));
    }
    fn_ = body;
    buffers_.clear();
    for (int i = 0; i < num_buffers; ++i) buffers_.push_back(body->getArg(i));
    auto* entry = llvm::BasicBlock::Create(ctx_, "entry", body);
    auto* exit = llvm::BasicBlock::Create(ctx_, "exit", body);
    b_.SetInsertPoint(entry);
    phase_ = &phase;
    base_.assign(p_.vars.size(), b_.getInt64(0));
    limit_.assign(p_.vars.size(), Limit{});
    for (size_t v = 0; v < p_.vars.size(); ++v) limit_[v].constant = p_.vars[v].extent;
    thread_index_.clear();
    if (target_ == Target::kNvptx) DecodeThreadIndex(exit);
    EmitLevel(0);
    b_.CreateBr(exit);
    b_.SetInsertPoint(exit);
    b_.CreateRetVoid();
  }

 private:
  // CPU: the exported entry point loads the buffer pointers and calls the noalias body.
  void EmitCpuEntry(const std::string& name, llvm::Function* body) {
    auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx_), {ptr_, i64_, i64_}, false);
    llvm::Function* entry = llvm::Function::Create(type, llvm::Function::ExternalLinkage, name, m_);
    entry->addFnAttr(llvm::Attribute::NoUnwind);
    b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", entry));
    std::vector<llvm::Value*> args;
    for (size_t i = 0; i < plan_.buffers.size(); ++i) {
      args.push_back(b_.CreateLoad(ptr_, b_.CreateConstGEP1_64(ptr_, entry->getArg(0), i)));
    }
    args.push_back(entry->getArg(1));
    args.push_back(entry->getArg(2));
    b_.CreateCall(body, args);
    b_.CreateRetVoid();
  }

  llvm::Value* Sreg(llvm::Intrinsic::ID id) {
    return b_.CreateZExt(b_.CreateIntrinsic(id, {}, {}), i64_);
  }

  // GPU: this thread's global index, past the grid's useful size -> exit, then one index per
  // threaded loop (mixed radix over full trip counts, the last-listed loop fastest).
  void DecodeThreadIndex(llvm::BasicBlock* exit) {
    llvm::Value* tid = b_.CreateAdd(b_.CreateMul(Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x),
                                                 Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x)),
                                    Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x));
    auto* go = llvm::BasicBlock::Create(ctx_, "go", fn_);
    b_.CreateCondBr(b_.CreateICmpULT(tid, b_.getInt64(phase_->threads)), go, exit);
    b_.SetInsertPoint(go);
    for (auto it = phase_->loops.rbegin(); it != phase_->loops.rend(); ++it) {
      if (!loops_[*it].thread) continue;
      const int64_t trip = Trip(loops_[*it]);
      thread_index_[*it] = b_.CreateURem(tid, b_.getInt64(trip));
      tid = b_.CreateUDiv(tid, b_.getInt64(trip));
    }
  }

  void EmitLevel(size_t level) {
    if (level == phase_->loops.size()) {
      EmitBody();
      return;
    }
    const int l = phase_->loops[level];
    const Loop& loop = loops_[l];
    const int v = loop.var;
    const int64_t k = InnerCoverage(loops_, l);
    const Limit limit = limit_[v];
    // Trip count here: ceil(limit / k).
    llvm::Value* trip =
        limit.value ? b_.CreateUDiv(b_.CreateAdd(limit.value, b_.getInt64(k - 1)), b_.getInt64(k))
                    : b_.getInt64((limit.constant + k - 1) / k);
    auto enter = [&](llvm::Value* i) {
      llvm::Value* saved_base = base_[v];
      const Limit saved_limit = limit_[v];
      base_[v] = b_.CreateAdd(base_[v], b_.CreateMul(i, b_.getInt64(k)));
      if (!limit.value && limit.constant % k == 0) {
        limit_[v] = Limit{k, nullptr};  // every iteration covers a full block
      } else {
        llvm::Value* whole = limit.value ? limit.value : b_.getInt64(limit.constant);
        llvm::Value* rest = b_.CreateSub(whole, b_.CreateMul(i, b_.getInt64(k)));
        limit_[v] =
            Limit{0, b_.CreateSelect(b_.CreateICmpULT(rest, b_.getInt64(k)), rest, b_.getInt64(k))};
      }
      EmitLevel(level + 1);
      base_[v] = saved_base;
      limit_[v] = saved_limit;
    };
    if (target_ == Target::kNvptx && loop.thread) {
      llvm::Value* i = thread_index_.at(l);
      auto* then = llvm::BasicBlock::Create(ctx_, "in", fn_);
      auto* after = llvm::BasicBlock::Create(ctx_, "after", fn_);
      b_.CreateCondBr(b_.CreateICmpULT(i, trip), then, after);
      b_.SetInsertPoint(then);
      enter(i);
      b_.CreateBr(after);
      b_.SetInsertPoint(after);
      return;
    }
    llvm::Value* lo = b_.getInt64(0);
    llvm::Value* hi = trip;
    if (target_ == Target::kCpu && l == phase_->parallel_loop) {
      lo = fn_->getArg(static_cast<unsigned>(plan_.buffers.size()));
      llvm::Value* end = fn_->getArg(static_cast<unsigned>(plan_.buffers.size()) + 1);
      hi = b_.CreateSelect(b_.CreateICmpSLT(end, trip), end, trip);
    }
    llvm::BasicBlock* pre = b_.GetInsertBlock();
    auto* header = llvm::BasicBlock::Create(ctx_, "loop", fn_);
    auto* body = llvm::BasicBlock::Create(ctx_, "body", fn_);
    auto* done = llvm::BasicBlock::Create(ctx_, "done", fn_);
    b_.CreateBr(header);
    b_.SetInsertPoint(header);
    llvm::PHINode* i = b_.CreatePHI(i64_, 2);
    i->addIncoming(lo, pre);
    b_.CreateCondBr(b_.CreateICmpSLT(i, hi), body, done);
    b_.SetInsertPoint(body);
    enter(i);
    llvm::Value* next = b_.CreateAdd(i, b_.getInt64(1), "", true, true);
    i->addIncoming(next, b_.GetInsertBlock());
    b_.CreateBr(header);
    b_.SetInsertPoint(done);
  }

  llvm::Value* Address(int buffer, const std::vector<int>& vars) {
    llvm::Value* offset = b_.getInt64(0);
    for (int v : vars) {
      offset = b_.CreateAdd(b_.CreateMul(offset, b_.getInt64(p_.vars[v].extent)), base_[v], "",
                            true, true);
    }
    return b_.CreateInBoundsGEP(f32_, buffers_[buffer], offset);
  }

  llvm::Value* Value(int id, std::map<int, llvm::Value*>& memo) {
    if (auto it = memo.find(id); it != memo.end()) return it->second;
    const Node& n = p_.nodes[id];
    llvm::Value* v = nullptr;
    if (p_.IsReduction(id)) {
      v = b_.CreateLoad(f32_, Address(temp_of_.at(id), n.vars));
    } else if (n.op == Op::kRead) {
      v = b_.CreateLoad(f32_, Address(n.tensor, n.vars));
    } else if (n.op == Op::kExp) {
      llvm::Value* x = Value(n.inputs[0], memo);
      if (target_ == Target::kCpu) {
        v = b_.CreateUnaryIntrinsic(llvm::Intrinsic::exp, x);
      } else {  // exp(x) = 2^(x log2 e): PTX has ex2 in hardware and no libm
        v = b_.CreateIntrinsic(llvm::Intrinsic::nvvm_ex2_approx_f, {},
                               {b_.CreateFMul(x, llvm::ConstantFP::get(f32_, 1.4426950408889634))});
      }
    } else {
      llvm::Value* a = Value(n.inputs[0], memo);
      llvm::Value* c = Value(n.inputs[1], memo);
      switch (n.op) {
        case Op::kAdd:
          v = b_.CreateFAdd(a, c);
          break;
        case Op::kSub:
          v = b_.CreateFSub(a, c);
          break;
        case Op::kMul:
          v = b_.CreateFMul(a, c);
          break;
        case Op::kDiv:
          v = b_.CreateFDiv(a, c);
          break;
        case Op::kMax:
          v = b_.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, a, c);
          break;
        default:
          break;
      }
    }
    memo[id] = v;
    return v;
  }

  void EmitBody() {
    std::map<int, llvm::Value*> memo;
    const Node& n = p_.nodes[phase_->node];
    llvm::Value* value = Value(n.inputs[0], memo);
    if (n.op == Op::kWrite) {
      b_.CreateStore(value, Address(n.tensor, n.vars));
      return;
    }
    llvm::Value* slot = Address(temp_of_.at(phase_->node), n.vars);
    const bool is_max = n.op == Op::kMax;
    if (phase_->atomic) {
      b_.CreateAtomicRMW(is_max ? llvm::AtomicRMWInst::FMax : llvm::AtomicRMWInst::FAdd, slot,
                         value, llvm::Align(4), llvm::AtomicOrdering::Monotonic);
      return;
    }
    llvm::Value* old = b_.CreateLoad(f32_, slot);
    b_.CreateStore(is_max ? b_.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, old, value)
                          : b_.CreateFAdd(old, value),
                   slot);
  }

 public:
  std::map<int, int> temp_of_;  // reduction node -> its buffer

 private:
  const Program& p_;
  const std::vector<Loop>& loops_;
  const KernelPlan& plan_;
  Target target_;
  llvm::Module& m_;
  llvm::LLVMContext& ctx_;
  llvm::IRBuilder<> b_;
  llvm::Type* i64_;
  llvm::Type* f32_;
  llvm::PointerType* ptr_;
  llvm::Function* fn_ = nullptr;
  const Phase* phase_ = nullptr;
  std::vector<llvm::Value*> buffers_;
  std::vector<llvm::Value*> base_;
  std::vector<Limit> limit_;
  std::map<int, llvm::Value*> thread_index_;
};

}  // namespace

KernelPlan PlanKernels(const Program& program, const std::vector<Loop>& loops, Target target) {
  KernelPlan plan;
  for (const TensorInfo& t : program.tensors) {
    plan.buffers.push_back({program.Elements(t.vars), static_cast<int>(plan.buffers.size()), 0});
  }
  for (int id = 0; id < static_cast<int>(program.nodes.size()); ++id) {
    const Node& n = program.nodes[id];
    const bool reduction = program.IsReduction(id);
    if (!reduction && n.op != Op::kWrite) continue;
    if (reduction) {
      plan.buffers.push_back({program.Elements(n.vars), -1, n.op == Op::kMax ? -INFINITY : 0.0f});
    }
    Phase phase;
    phase.node = id;
    const std::vector<int> domain = program.Domain(id);
    for (int l = 0; l < static_cast<int>(loops.size()); ++l) {
      if (Contains(domain, loops[l].var)) phase.loops.push_back(l);
    }
    for (int l : phase.loops) {
      if (!loops[l].thread) continue;
      if (target == Target::kNvptx) {
        phase.threads *= Trip(loops[l]);
        phase.atomic |= !Contains(n.vars, loops[l].var);
      } else if (phase.parallel_loop < 0) {
        phase.parallel_loop = l;
        phase.parallel_trip = Trip(loops[l]);
        phase.atomic = !Contains(n.vars, loops[l].var);
      }
    }
    plan.phases.push_back(std::move(phase));
  }
  return plan;
}

std::unique_ptr<llvm::Module> Lower(const Program& program, const std::vector<Loop>& loops,
                                    const KernelPlan& plan, Target target,
                                    llvm::LLVMContext& context) {
  auto module = std::make_unique<llvm::Module>("loop_tool." + program.key, context);
  Emitter emitter(program, loops, plan, target, *module);
  int temp = static_cast<int>(program.tensors.size());
  for (int id = 0; id < static_cast<int>(program.nodes.size()); ++id) {
    if (program.IsReduction(id)) emitter.temp_of_[id] = temp++;
  }
  for (int i = 0; i < static_cast<int>(plan.phases.size()); ++i) emitter.EmitPhase(i);
  return module;
}

namespace {

// A module's instructions, all functions together.
int64_t InstructionCount(const llvm::Module& module) {
  int64_t count = 0;
  for (const llvm::Function& f : module) count += f.getInstructionCount();
  return count;
}

// LLVM fully unrolls loops of constant trip count. A schedule that leaves many elements to one
// thread can unroll into blocks so large that instruction scheduling takes seconds (add/4096
// as serial loops of 15 x 273: 0.9-1.4 s, where its loops compile in 15 ms), while unrolling
// small loops is worth keeping (matmul/128x128x128 ran about 25% faster unrolled). So a module
// that unrolls past this size is optimized again without unrolling.
constexpr int64_t kMaxUnrolledInstructions = 4000;

void Optimize(llvm::Module& module, llvm::TargetMachine& machine, bool unroll) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = unroll;
  llvm::PassBuilder pb(&machine, tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(module, mam);
}

}  // namespace

std::unique_ptr<llvm::Module> LowerOptimized(const Program& program, const std::vector<Loop>& loops,
                                             const KernelPlan& plan, Target target,
                                             llvm::TargetMachine& machine,
                                             llvm::LLVMContext& context) {
  auto lower = [&] {
    std::unique_ptr<llvm::Module> module = Lower(program, loops, plan, target, context);
    module->setDataLayout(machine.createDataLayout());
    module->setTargetTriple(machine.getTargetTriple().str());
    for (llvm::Function& f : *module) {
      f.addFnAttr("target-cpu", machine.getTargetCPU());
      f.addFnAttr("target-features", machine.getTargetFeatureString());
    }
    return module;
  };
  std::unique_ptr<llvm::Module> module = lower();
  Optimize(*module, machine, /*unroll=*/true);
  if (InstructionCount(*module) > kMaxUnrolledInstructions) {
    module = lower();
    Optimize(*module, machine, /*unroll=*/false);
  }
  return module;
}

}  // namespace compiler_gym::loop_tool_env
