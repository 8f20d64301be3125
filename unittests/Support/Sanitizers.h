//===- unittests/Support/Sanitizers.h - Sanitizer builds --------*- C++ -*-===//
//
// A few tests measure memory (resident set, address-space limits), which
// the sanitizers' allocators and shadow memory make meaningless: they skip
// themselves when kSanitized. Clang says so through __has_feature only.
// kLeakChecked says whether exit() checks for leaks.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_UNITTESTS_SUPPORT_SANITIZERS_H
#define TTILE_UNITTESTS_SUPPORT_SANITIZERS_H

namespace ttile::testing {

#if defined(__has_feature)
inline constexpr bool kSanitized = __has_feature(address_sanitizer) ||
                                   __has_feature(thread_sanitizer) ||
                                   __has_feature(memory_sanitizer);
/// LeakSanitizer runs with AddressSanitizer, and checks at exit().
inline constexpr bool kLeakChecked = __has_feature(address_sanitizer);
#else
inline constexpr bool kSanitized = false;
inline constexpr bool kLeakChecked = false;
#endif

} // namespace ttile::testing

#endif // TTILE_UNITTESTS_SUPPORT_SANITIZERS_H
