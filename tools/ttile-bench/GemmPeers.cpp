//===- ttile-bench/GemmPeers.cpp - The BLAS libraries, loaded at run time -===//

#include "GemmPeers.h"

#include "Support/Host.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <optional>

namespace ttile::bench {
namespace {

// The CBLAS enumerators, the same in every implementation.
constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;

using CblasSgemm = void (*)(int layout, int transA, int transB, int M, int N,
                            int K, float alpha, const float *A, int lda,
                            const float *B, int ldb, float beta, float *C,
                            int ldc);

/// What differs between the libraries: where each is, how it is told its
/// threads and how it names its version.
struct Library {
  const char *name;
  std::vector<std::string> files; ///< Tried in order.
  /// Called with the thread count: openblas_set_num_threads(int) and the
  /// like. BLIS's takes a 64-bit dim_t.
  const char *setThreads;
  bool setThreadsTakesInt64;
  std::string (*version)(void *handle);
  /// Called after dlopen, before any other call; may be null.
  void (*chooseKernels)(void *handle);
};

template <typename Function> Function symbol(void *handle, const char *name) {
  return reinterpret_cast<Function>(dlsym(handle, name));
}

std::string openBlasVersion(void *handle) {
  auto config = symbol<const char *(*)()>(handle, "openblas_get_config");
  return config ? config() : "?";
}

std::string blisVersion(void *handle) {
  auto version = symbol<const char *(*)()>(handle, "bli_info_get_version_str");
  return version ? version() : "?";
}

std::string mklVersion(void *handle) {
  auto version =
      symbol<void (*)(char *, int)>(handle, "MKL_Get_Version_String");
  if (!version)
    return "?";
  char text[256] = {};
  version(text, sizeof text - 1);
  return text;
}

std::vector<std::string> mklFiles() {
  std::vector<std::string> files;
  if (const char *path = std::getenv("TTILE_MKL_LIBRARY"))
    files.push_back(path);
  files.push_back("/opt/mkl/lib/libmkl_rt.so.2");
  files.push_back("libmkl_rt.so.2");
  return files;
}

class CblasPeer final : public GemmPeer {
public:
  /// The library stays loaded until the process exits: OpenBLAS and MKL
  /// keep worker threads and buffers that dlclose() would pull out from
  /// under them.
  CblasPeer(std::string name, std::string version, CblasSgemm sgemm)
      : name_(std::move(name)), version_(std::move(version)), sgemm_(sgemm) {}

  std::string name() const override { return name_; }
  std::string version() const override { return version_; }

  void run(const MatMulParams &p, const float *A, const float *B,
           float *C) const override {
    const GemmStrides s = gemmStrides(p);
    const int64_t strideB = p.broadcastB ? 0 : s.strideB;
    for (int64_t item = 0; item < p.batch; ++item)
      sgemm_(kRowMajor, p.transA ? kTrans : kNoTrans,
             p.transB ? kTrans : kNoTrans, int(p.M), int(p.N), int(p.K), 1.0f,
             A + item * s.strideA, int(s.lda), B + item * strideB, int(s.ldb),
             0.0f, C + item * s.strideC, int(s.ldc));
  }

private:
  std::string name_, version_;
  CblasSgemm sgemm_;
};

/// The kernels OpenBLAS and BLIS are told to use: those of the host's
/// vector ISA, unless the caller already chose. Debian's builds pick theirs
/// from the CPUID, and on the Sapphire Rapids VMs neither knew the CPU:
/// OpenBLAS fell back to its SSE3 "Prescott" kernels (28 GFLOP/s where its
/// SkylakeX ones reach 130), BLIS to slower ones than its skx (70 against
/// 130). OpenBLAS reads OPENBLAS_CORETYPE when it is loaded.
void chooseOpenBlasKernels() {
  if (host().hasAVX512 || host().hasAVX2)
    setenv("OPENBLAS_CORETYPE", host().hasAVX512 ? "SkylakeX" : "Haswell", 0);
}

/// What BLIS_ARCH_TYPE named before chooseBlisKernels made it a number.
std::string &blisKernelsChosen() {
  static std::string name;
  return name;
}

/// BLIS 0.9.0 reads BLIS_ARCH_TYPE at its first call as the number of a
/// sub-configuration: a name reads as 0, skx, whose AVX-512 code stopped
/// an AVX2 host (AMD Zen 3, 2026-11-29) with SIGILL. So the name, ours or
/// the caller's, becomes its number in this library's own list
/// (bli_arch_string), after dlopen and before any call; a name the library
/// does not list is dropped, and BLIS detects the CPU itself.
void chooseBlisKernels(void *handle) {
  const char *set = std::getenv("BLIS_ARCH_TYPE");
  std::string wanted = set                ? set
                       : host().hasAVX512 ? "skx"
                       : host().hasAVX2   ? "haswell"
                                          : "";
  if (wanted.empty() ||
      wanted.find_first_not_of("0123456789") == std::string::npos)
    return;
  blisKernelsChosen() = wanted;
  if (auto archName = symbol<const char *(*)(int)>(handle, "bli_arch_string"))
    for (int id = 0; id < 256 && archName(id); ++id)
      if (wanted == archName(id)) {
        setenv("BLIS_ARCH_TYPE", std::to_string(id).c_str(), 1);
        return;
      }
  unsetenv("BLIS_ARCH_TYPE");
  blisKernelsChosen() += ", unknown to this BLIS";
}

} // namespace

GemmStrides gemmStrides(const MatMulParams &p) {
  GemmStrides s;
  s.lda = p.lda ? p.lda : (p.transA ? p.M : p.K);
  s.ldb = p.ldb ? p.ldb : (p.transB ? p.K : p.N);
  s.ldc = p.ldc ? p.ldc : p.N;
  s.strideA = p.strideA ? p.strideA : (p.transA ? p.K : p.M) * s.lda;
  s.strideB = p.strideB ? p.strideB : (p.transB ? p.N : p.K) * s.ldb;
  s.strideC = p.strideC ? p.strideC : p.M * s.ldc;
  return s;
}

std::string blasKernelChoice() {
  auto value = [](const char *name) {
    const char *set = std::getenv(name);
    return std::string(name) + "=" + (set ? set : "(unset)");
  };
  const std::string &blisName = blisKernelsChosen();
  return value("OPENBLAS_CORETYPE") + " " + value("BLIS_ARCH_TYPE") +
         (blisName.empty() ? "" : " (" + blisName + ")");
}

GemmPeers loadGemmPeers(int threads) {
  chooseOpenBlasKernels();
  const Library libraries[] = {
      {"OpenBLAS",
       {"libopenblas.so.0"},
       "openblas_set_num_threads",
       false,
       openBlasVersion,
       nullptr},
      {"BLIS",
       {"libblis.so.4"},
       "bli_thread_set_num_threads",
       true,
       blisVersion,
       chooseBlisKernels},
      {"MKL", mklFiles(), "MKL_Set_Num_Threads", false, mklVersion, nullptr},
  };
  GemmPeers peers;
  for (const Library &library : libraries) {
    void *handle = nullptr;
    std::string tried;
    for (const std::string &file : library.files) {
      handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (handle)
        break;
      tried += (tried.empty() ? "" : ", ") + file;
    }
    if (!handle) {
      peers.missing.push_back(
          {library.name, "not found (tried " + tried + "; scripts/setup)"});
      continue;
    }
    auto sgemm = symbol<CblasSgemm>(handle, "cblas_sgemm");
    if (!sgemm) {
      dlclose(handle);
      peers.missing.push_back({library.name, "has no cblas_sgemm"});
      continue;
    }
    if (library.chooseKernels)
      library.chooseKernels(handle);
    if (library.setThreadsTakesInt64) {
      if (auto set = symbol<void (*)(int64_t)>(handle, library.setThreads))
        set(threads);
    } else if (auto set = symbol<void (*)(int)>(handle, library.setThreads)) {
      set(threads);
    }
    peers.loaded.push_back(std::make_unique<CblasPeer>(
        library.name, library.version(handle), sgemm));
  }
  return peers;
}

} // namespace ttile::bench
