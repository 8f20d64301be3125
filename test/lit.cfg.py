# -*- Python -*-
# The ttile lit suite: tool-level tests (ttile-scheme, ttile-gen, ...) checked
# with FileCheck. Paths come from the generated lit.site.cfg.py of a build
# tree; run the suite as `lit -sv build/test` or via the check-lit target.

import os

import lit.formats

config.name = "ttile"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".test", ".ll"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in", "Inputs"]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.ttile_obj_root, "test")

# FileCheck, not and count come from LLVM; the ttile tools from the build
# tree. Both go ahead of the user's PATH so that the suite never picks up a
# stale installed ttile or another LLVM's FileCheck.
path = [config.ttile_tools_dir,
        os.path.dirname(config.filecheck_path),
        config.llvm_tools_dir]
config.environment["PATH"] = os.pathsep.join(
    [p for p in path if p] + [config.environment.get("PATH", "")])

# lit passes only a fixed list of variables through to the tests, so the
# developer's TTILE_LOG and similar settings do not leak in; a test that needs
# one sets it in its RUN line (`env TTILE_LOG=debug ...`).

# %ttile-scheme, %ttile-gen, and any later ttile-<name> tool: '%' + name maps
# to the executable in the tools directory. The two current tools are always
# defined, so that a test of a tool that failed to build reports the missing
# file rather than an unexpanded '%ttile-...'. Longest names go first because
# lit substitutes in order and '%ttile-scheme' is a prefix of
# '%ttile-scheme-fuzzer'. (They also precede lit's own '%t', which lit
# appends after the config's substitutions.)
tools = {"ttile-scheme", "ttile-gen"}
if os.path.isdir(config.ttile_tools_dir):
    for name in os.listdir(config.ttile_tools_dir):
        full = os.path.join(config.ttile_tools_dir, name)
        if name.startswith("ttile-") and os.path.isfile(full) and os.access(full, os.X_OK):
            tools.add(name)
for name in sorted(tools, key=lambda n: (-len(n), n)):
    config.substitutions.append(("%" + name, os.path.join(config.ttile_tools_dir, name)))

# %ttile-library: the shared library consumers link, for checks of what it
# exports.
config.substitutions.append(
    ("%ttile-library", os.path.join(config.ttile_obj_root, "lib", "libttile.so")))

# Host features, for tests that check the assembly of host kernels:
# `REQUIRES: avx512` or `REQUIRES: avx2`.
try:
    with open("/proc/cpuinfo") as cpuinfo:
        flags = set()
        for line in cpuinfo:
            if line.startswith("flags"):
                flags.update(line.split(":", 1)[1].split())
                break
except OSError:
    flags = set()
if "avx512f" in flags:
    config.available_features.add("avx512")
if "avx2" in flags:
    config.available_features.add("avx2")
if config.ttile_sanitizers:
    config.available_features.add("asan")
# `REQUIRES: onednn` for tests of ttile-bench against oneDNN.
if config.ttile_onednn:
    config.available_features.add("onednn")
# `REQUIRES: onnxruntime` for ttile-onnx and its library: built, and ONNX
# Runtime's Python package importable by ttile-onnx (which says why not).
# First, before %ttile-onnx (a prefix of it) replaces its beginning.
config.substitutions.insert(0, (
    "%ttile-onnxruntime-library",
    os.path.join(config.ttile_obj_root, "lib", "libttile-onnxruntime.so")))
if config.ttile_onnxruntime:
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as probe:
        result = subprocess.run(
            [os.path.join(config.ttile_tools_dir, "ttile-onnx"), "model",
             "conv_relu", os.path.join(probe, "probe.onnx")],
            capture_output=True, text=True)
    if result.returncode == 0:
        config.available_features.add("onnxruntime")
    else:
        lit_config.note("ttile-onnx tests unsupported: " +
                        result.stderr.strip())
else:
    lit_config.note("ttile-onnx tests unsupported: libttile-onnxruntime.so "
                    "not built (ONNX Runtime's headers not found)")
