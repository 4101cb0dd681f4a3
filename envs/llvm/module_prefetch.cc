// The background worker behind module prefetching: one thread that runs posted tasks in order.
// It stops at exit, before the statics it relies on are destroyed; later tasks run inline.
#include "envs/llvm/module_prefetch.h"

#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "engine/env.h"
#include "envs/llvm/module_util.h"

namespace compiler_gym::llvm_env {

namespace {

// One thread that runs posted tasks in order. It is deliberately leaked: its destructor would
// run among static destructors, possibly after LLVM state it uses is gone. Stop() joins it.
class BackgroundWorker {
 public:
  static BackgroundWorker& Get() {
    static BackgroundWorker* worker = [] {
      auto* w = new BackgroundWorker();
      // Join before static destructors run (atexit handlers registered after the statics the
      // worker relies on run before those statics are destroyed).
      std::atexit([] { Get().Stop(); });
      return w;
    }();
    return *worker;
  }

  // Runs `task` on the worker, or inline once the worker has stopped.
  void Post(std::function<void()> task) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!stopped_) {
        queue_.push_back(std::move(task));
        cv_.notify_one();
        return;
      }
    }
    task();
  }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopped_) return;
      stopped_ = true;
    }
    cv_.notify_one();
    if (thread_.joinable()) thread_.join();
  }

 private:
  // Where background threads are not allowed, it is born stopped: everything runs inline.
  BackgroundWorker() {
    if (BackgroundThreadsAllowed()) {
      thread_ = std::thread([this] { Run(); });
    } else {
      stopped_ = true;
    }
  }

  void Run() {
    while (true) {
      std::function<void()> task;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return stopped_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stopped and drained
        task = std::move(queue_.front());
        queue_.pop_front();
      }
      task();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopped_ = false;
  std::thread thread_;
};

}  // namespace

StatusOr<ModuleCopy> MakeModuleCopy(const CachedBenchmark& benchmark) {
  ModuleCopy copy;
  copy.context = NewContext();
  ASSIGN_OR_RETURN(copy.module,
                   ParseModule(benchmark.bitcode(), benchmark.benchmark().uri, *copy.context));
  return copy;
}

std::future<StatusOr<ModuleCopy>> PrefetchModuleCopy(std::shared_ptr<CachedBenchmark> benchmark) {
  // std::function needs a copyable callable, so the task lives behind a shared_ptr.
  auto task = std::make_shared<std::packaged_task<StatusOr<ModuleCopy>()>>(
      [benchmark] { return MakeModuleCopy(*benchmark); });
  std::future<StatusOr<ModuleCopy>> result = task->get_future();
  BackgroundWorker::Get().Post([task] { (*task)(); });
  return result;
}

void DestroyInBackground(ModuleCopy copy) {
  if (!copy.module && !copy.context) return;
  auto holder = std::make_shared<ModuleCopy>(std::move(copy));
  BackgroundWorker::Get().Post([holder]() mutable { holder.reset(); });
}

void StopBackgroundWorker() { BackgroundWorker::Get().Stop(); }

}  // namespace compiler_gym::llvm_env
