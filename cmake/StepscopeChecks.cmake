# Checks the build applies to Stepscope's own code (every target defined below the top-level
# CMakeLists; third-party code comes in through imported targets, whose headers CMake includes as
# SYSTEM, so their warnings stay theirs). The CI presets turn them on; docs/decisions.md says why
# this warning set.

option(STEPSCOPE_WARNINGS_AS_ERRORS "Compile Stepscope's own code with its warning set as errors" OFF)
option(STEPSCOPE_ASSERTIONS "Keep assert() and Q_ASSERT active in optimized builds" OFF)
set(STEPSCOPE_SANITIZE "" CACHE STRING "Sanitizers for every target, e.g. address,undefined (GCC/Clang)")

if(STEPSCOPE_WARNINGS_AS_ERRORS)
  if(MSVC)
    add_compile_options(/W4 /WX /permissive-)
  else()
    # -Wconversion and -Wshadow catch the silent narrowing and the shadowed member that tests rarely
    # see; -Wno-sign-conversion because every std::vector index against an int count would need a
    # cast that says nothing.
    add_compile_options(-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion -Werror)
  endif()
endif()

if(STEPSCOPE_ASSERTIONS)
  # RelWithDebInfo and Release define NDEBUG; CI wants the assertions without giving up -O2.
  foreach(config RELWITHDEBINFO RELEASE MINSIZEREL)
    string(REPLACE "-DNDEBUG" "" CMAKE_CXX_FLAGS_${config} "${CMAKE_CXX_FLAGS_${config}}")
    string(REPLACE "/DNDEBUG" "" CMAKE_CXX_FLAGS_${config} "${CMAKE_CXX_FLAGS_${config}}")
  endforeach()
  # Qt defines QT_NO_DEBUG outside Debug builds, which turns Q_ASSERT off; this keeps it on.
  add_compile_definitions(QT_FORCE_ASSERTS)
endif()

if(STEPSCOPE_SANITIZE)
  if(MSVC)
    add_compile_options(/fsanitize=${STEPSCOPE_SANITIZE})
  else()
    add_compile_options(-fsanitize=${STEPSCOPE_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
    add_link_options(-fsanitize=${STEPSCOPE_SANITIZE})
  endif()
endif()
