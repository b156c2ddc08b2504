# Cross-compiles for 64-bit Windows with Debian's mingw-w64 (package g++-mingw-w64-x86-64-posix) and
# runs what it builds under wine64 (package wine64): the `windows-mingw-core` preset, which builds the
# Qt-free core and its tests (README "Windows"). The posix-threads variant of the compiler, because
# the core uses std::thread and std::mutex, which the win32-threads variant lacks in GCC 12.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc-posix) # GoogleTest's project() enables C too
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++-posix)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# libstdc++, libgcc and winpthread linked in: the .exe runs without the compiler's DLLs beside it
# (on a Windows machine as under wine).
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
# Debian puts wine64 in /usr/lib/wine without a link on PATH unless the `wine` package is there too.
find_program(STEPSCOPE_WINE64 NAMES wine64 HINTS /usr/lib/wine NO_CMAKE_FIND_ROOT_PATH)
# Tests (and gtest's discovery at build time) run through it, with a wine prefix of the build's own
# (made on first use, in seconds) and without wine's debug chatter on stderr.
if(STEPSCOPE_WINE64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${CMAKE_COMMAND} -E env WINEPREFIX=${CMAKE_BINARY_DIR}/wine-prefix WINEDEBUG=-all
                                    ${STEPSCOPE_WINE64})
endif()
