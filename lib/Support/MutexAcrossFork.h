//===- Support/MutexAcrossFork.h - A mutex held over fork() -----*- C++ -*-===//
//
// The child of a fork() has only the thread that forked. A mutex that
// another thread held at the fork stays taken in the child for ever, and
// what it guards may be half written. A process-wide singleton whose mutex
// guards state the child needs registers holdMutexAcrossFork() once, from
// its constructor: every fork() then takes the mutex first, so the child
// finds the state whole; the child's hook forgets what belonged to the
// parent's other threads, and the mutex is released on both sides.
//
//===----------------------------------------------------------------------===//
#ifndef TTILE_SUPPORT_MUTEXACROSSFORK_H
#define TTILE_SUPPORT_MUTEXACROSSFORK_H

#include <mutex>

#include <pthread.h>

namespace ttile::support {

/// `Singleton::get()` returns the instance; `Mutex` is its mutex, and
/// `InChild` runs in the child with the mutex held, before it is released.
/// Named from inside the singleton, the members may be private.
template <typename Singleton, std::mutex Singleton::*Mutex,
          void (Singleton::*InChild)()>
void holdMutexAcrossFork() {
  pthread_atfork([] { (Singleton::get().*Mutex).lock(); },
                 [] { (Singleton::get().*Mutex).unlock(); },
                 [] {
                   Singleton &singleton = Singleton::get();
                   (singleton.*InChild)();
                   (singleton.*Mutex).unlock();
                 });
}

} // namespace ttile::support

#endif // TTILE_SUPPORT_MUTEXACROSSFORK_H
