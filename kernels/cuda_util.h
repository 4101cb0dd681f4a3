// Internal to kernels/, CUDA builds only: helpers shared by device.cc and the .cu files. Nothing
// outside kernels/ includes this header, so CUDA's headers stay out of the public ones.
#pragma once

#ifndef CG_WITH_CUDA
#error "kernels/cuda_util.h is only for builds with CUDA (CG_WITH_CUDA)"
#endif

#include <cuda_runtime_api.h>

#include <string_view>

#include "engine/status.h"

namespace compiler_gym::kernels {

// OK for cudaSuccess; otherwise kResourceExhausted (out of memory) or kInternal naming `what`
// and the CUDA error. Clears CUDA's last-error slot so that a later launch check does not report
// this error again.
Status CudaStatus(cudaError_t error, std::string_view what);

// nullptr -> the engine stream.
cudaStream_t ResolveStream(void* stream);

// Stream-ordered device memory: cudaMallocAsync / cudaFreeAsync where the current device has
// memory pools, cudaMalloc / cudaFree otherwise. Every device allocation of kernels/ (buffers and
// Thrust's scratch) goes through these two.
cudaError_t StreamMalloc(void** ptr, size_t bytes, cudaStream_t stream);
cudaError_t StreamFree(void* ptr, cudaStream_t stream);

}  // namespace compiler_gym::kernels

// Returns a non-OK Status from the enclosing function when a CUDA runtime call fails.
#define CG_CUDA_RETURN_IF_ERROR(call) \
  RETURN_IF_ERROR(::compiler_gym::kernels::CudaStatus((call), #call))
