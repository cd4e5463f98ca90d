"""Builds the xfer Python package with the project's CMake build.

The extension module xfer._xfer is the CMake target `_xfer`
(python/CMakeLists.txt), built in the persistent directory build/pip so that
repeated installs are incremental; this file only configures, builds that
one target and copies the module into the package. The version is the one
declared by project(xfer VERSION ...) in the top-level CMakeLists.txt.

Environment honoured: CMAKE_BUILD_PARALLEL_LEVEL (parallel build jobs),
CMAKE_CXX_COMPILER_LAUNCHER (e.g. ccache), CMAKE_ARGS (extra configure
arguments, space-separated).
"""

import os
import pathlib
import re
import shlex
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent
BUILD_DIR = ROOT / "build" / "pip"


def project_version():
    text = (ROOT / "CMakeLists.txt").read_text()
    match = re.search(r"project\(\s*xfer\s+VERSION\s+([0-9]+(?:\.[0-9]+)*)", text)
    if match is None:
        raise RuntimeError("no 'project(xfer VERSION ...)' in CMakeLists.txt")
    return match.group(1)


class CMakeExtension(Extension):
    """An extension built by a CMake target of the same (unqualified) name."""

    def __init__(self, name, target):
        super().__init__(name, sources=[])
        self.target = target


def forget_other_interpreter(build_dir):
    """Drops the CMake cache of `build_dir` when it was configured for
    another interpreter: FindPython keeps cached development headers as long
    as the major.minor version matches, so switching between two 3.11
    installations would otherwise mix one's headers with the other's
    interpreter. Object files stay, so the rebuild remains incremental."""
    cache = build_dir / "CMakeCache.txt"
    if not cache.exists():
        return
    configured = re.search(r"^_Python_EXECUTABLE:INTERNAL=(.*)$", cache.read_text(), re.MULTILINE)
    if configured and configured.group(1) != sys.executable:
        cache.unlink()


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        forget_other_interpreter(BUILD_DIR)
        configure = [
            "cmake", "-S", str(ROOT), "-B", str(BUILD_DIR),
            "-DCMAKE_BUILD_TYPE=Release",
            "-DXFER_PYTHON=ON",
            "-DXFER_BUILD_TESTS=OFF",
            "-DXFER_BUILD_BENCHMARKS=OFF",
            f"-DPython_EXECUTABLE={sys.executable}",
        ]
        configure += shlex.split(os.environ.get("CMAKE_ARGS", ""))
        build = ["cmake", "--build", str(BUILD_DIR), "--target", ext.target]
        # `cmake --build` reads CMAKE_BUILD_PARALLEL_LEVEL itself; without it,
        # honour build_ext's own --parallel.
        if "CMAKE_BUILD_PARALLEL_LEVEL" not in os.environ and self.parallel:
            build += ["--parallel", str(self.parallel)]
        subprocess.run(configure, check=True)
        subprocess.run(build, check=True)

        # python/CMakeLists.txt puts the module next to the package's
        # __init__.py in the build tree; setuptools wants it at its own path.
        module_name = pathlib.Path(self.get_ext_filename(ext.name)).name
        built = BUILD_DIR / "python" / "xfer" / module_name
        if not built.exists():
            raise RuntimeError(f"CMake did not produce {built} (is pybind11 installed? "
                               f"see 'xfer: Python bindings' in the configure output)")
        destination = pathlib.Path(self.get_ext_fullpath(ext.name))
        destination.parent.mkdir(parents=True, exist_ok=True)
        self.copy_file(str(built), str(destination))


# egg_info writes into it before any build step runs.
BUILD_DIR.mkdir(parents=True, exist_ok=True)

setup(
    version=project_version(),
    ext_modules=[CMakeExtension("xfer._xfer", target="_xfer")],
    cmdclass={"build_ext": CMakeBuild},
    # setuptools' own scratch space under the CMake build, not in the sources.
    options={"build": {"build_base": str(BUILD_DIR / "setuptools")},
             "egg_info": {"egg_base": str(BUILD_DIR)}},
    zip_safe=False,
)
