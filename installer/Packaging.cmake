# The packages: a .deb for Debian 12 and a relocatable .tar.gz of the same install tree.
#   cd build && cpack            (both; tests/install/install_test.sh checks them)
# Version and summary come from project(); the tarball unpacks anywhere because every program finds
# its parts relative to its own bin/ folder.
set(CPACK_PACKAGE_NAME stepscope)
set(CPACK_PACKAGE_VENDOR "Stepscope")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
# The .deb's long description, below the summary: lines under 80 characters, as Debian wants them.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION [=[
Stepscope runs a ResNet18 training step under each configuration you choose
(TF32, cuDNN autotuning, autocast, channels_last, CUDA graphs, the SGD
implementation, torch.compile), each in a cold process of its own, in LibTorch
C++ or in Python. It keeps every step in SQLite and shows what each
configuration costs up front, what it saves per step, after how many steps it
pays off and which finishes a planned run first, in a Qt dashboard or a
headless command-line front-end.

PyTorch is not included: stepscope-cli setup, or the dashboard, installs the
torch release Stepscope was built for into a virtual environment in the
user's data folder.]=])
# The maintainer is the project's own identity (its commits'), changeable per build.
set(STEPSCOPE_PACKAGE_CONTACT "Seed ec45156f maintainers <maintainers@users.noreply.a-seed-ec45156f.example>"
    CACHE STRING "Maintainer of the .deb: Name <address>")
set(CPACK_PACKAGE_CONTACT "${STEPSCOPE_PACKAGE_CONTACT}")
set(CPACK_GENERATOR DEB TGZ)
set(CPACK_SOURCE_GENERATOR "")
# Shipped programs carry no debug information (a stripped worker is a fraction of the size).
set(CPACK_STRIP_FILES ON)
set(CPACK_VERBATIM_VARIABLES ON)

# --- .deb ---
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# Depends: the system's Qt, QCustomPlot, SQLite and C++ runtime as dpkg-shlibdeps reads them from the
# programs, plus the Python that the first-run setup makes its virtual environment with.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "python3 (>= 3.10), python3-venv")
# torch.compile's CPU code is C++ that inductor builds with g++ against Python.h: without them every
# compiled row on the CPU fails. Recommended, not required: apt installs them by default, and eager
# and native rows need neither. `doctor` names what is missing (stepscope_py/toolchain.py).
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "g++, python3-dev")
# LibTorch is private: the worker's libtorch*.so and libc10*.so come from the user's torch at run time
# (LD_LIBRARY_PATH), so no Debian package may be required for them. Showing dpkg-shlibdeps the build's
# torch lib/ as a private directory lets it resolve the worker's symbols there; torch's sonames carry
# no version, and for such a library dpkg-shlibdeps adds no dependency and raises no error.
# The worker also calls the CUDA runtime (libcudart.so.<N>, versioned, so not finding it would be an
# error): it comes with torch too (the wheel's nvidia packages), and the build linked the copy named here.
if(TARGET stepscope-worker AND TORCH_INSTALL_PREFIX)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS "${TORCH_INSTALL_PREFIX}/lib")
  if(CUDA_cudart_LIBRARY)
    get_filename_component(_cudart_dir "${CUDA_cudart_LIBRARY}" DIRECTORY)
    list(APPEND CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS "${_cudart_dir}")
  endif()
endif()
# No maintainer scripts: installing and removing touch only the package's own files, never the
# user's data (~/.local/share/stepscope: databases, the managed Python environment).

# Debian wants a copyright file and a changelog in /usr/share/doc/<package>; harmless in the tarball.
install(FILES ${CMAKE_CURRENT_LIST_DIR}/debian/copyright DESTINATION share/doc/stepscope)
if(STEPSCOPE_GZIP)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/debian/changelog.in ${CMAKE_CURRENT_BINARY_DIR}/changelog @ONLY)
  add_custom_command(
    OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/changelog.gz
    COMMAND ${STEPSCOPE_GZIP} -9nkf ${CMAKE_CURRENT_BINARY_DIR}/changelog
    DEPENDS ${CMAKE_CURRENT_BINARY_DIR}/changelog VERBATIM)
  add_custom_target(stepscope-package-changelog ALL DEPENDS ${CMAKE_CURRENT_BINARY_DIR}/changelog.gz)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/changelog.gz DESTINATION share/doc/stepscope)
endif()

# --- .tar.gz --- one top folder, stepscope-<version>-Linux/, holding bin/, lib/, share/.
set(CPACK_ARCHIVE_COMPONENT_INSTALL OFF)

include(CPack)
