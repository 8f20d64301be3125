//===- Runtime/ThreadBuffers.cpp - Copies around a kernel -----------------===//

#include "Runtime/ThreadBuffers.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <new>
#include <utility>
#include <vector>

namespace ttile::runtime {
namespace {

/// Zeroed floats on pages of their own, every page mapped when the buffer
/// is made (MAP_POPULATE) rather than at its first touch, one fault per 4
/// KiB page: the first run that grows a buffer pays less for it (MTTKRP's
/// first run, its 62.5 MB chain intermediate at 250^3, 52.8-58.4 ms
/// against 58.7-59.7 when its pages were touched, its kernel 34; AMD Zen
/// 5). Huge pages (madvise) made that first run three times as slow on the
/// same VM, which compacts memory at each fault.
class MappedBuffer {
public:
  MappedBuffer() = default;
  explicit MappedBuffer(size_t elements)
      : bytes_(std::max<size_t>(elements * sizeof(float), 1)),
        elements_(elements) {
    void *pages = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (pages == MAP_FAILED)
      throw std::bad_alloc();
    data_ = static_cast<float *>(pages);
  }
  MappedBuffer(MappedBuffer &&other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        bytes_(std::exchange(other.bytes_, 0)),
        elements_(std::exchange(other.elements_, 0)) {}
  MappedBuffer &operator=(MappedBuffer &&other) noexcept {
    std::swap(data_, other.data_);
    std::swap(bytes_, other.bytes_);
    std::swap(elements_, other.elements_);
    return *this;
  }
  MappedBuffer(const MappedBuffer &) = delete;
  MappedBuffer &operator=(const MappedBuffer &) = delete;
  ~MappedBuffer() {
    if (data_)
      ::munmap(data_, bytes_);
  }

  float *data() const { return data_; }
  size_t size() const { return elements_; }

private:
  float *data_ = nullptr;
  size_t bytes_ = 0;
  size_t elements_ = 0;
};

} // namespace

float *threadBuffer(ThreadBufferSlot slot, int64_t elements) {
  thread_local std::vector<MappedBuffer> buffers(
      static_cast<size_t>(ThreadBufferSlot::Count));
  MappedBuffer &buffer = buffers[static_cast<size_t>(slot)];
  // Never null, even for none: callers pass it on as a tensor.
  if (!buffer.data() || buffer.size() < static_cast<size_t>(elements))
    buffer = MappedBuffer(static_cast<size_t>(elements));
  return buffer.data();
}

} // namespace ttile::runtime
