# LibTorch comes from the torch wheel. Unless Torch_DIR or a prefix is given, ask the Python that
# holds torch (STEPSCOPE_PYTHON: the project's virtual environment, else python3) where it is.
if(NOT Torch_DIR)
  set(STEPSCOPE_PYTHON "" CACHE FILEPATH "Python interpreter whose torch provides LibTorch")
  set(_py "${STEPSCOPE_PYTHON}")
  if(NOT _py)
    set(_venv "$ENV{STEPSCOPE_VENV}")
    if(NOT _venv)
      # Windows has no HOME; its user profile holds the cache there (never built here: see README).
      if(DEFINED ENV{HOME})
        set(_venv "$ENV{HOME}/.cache/stepscope/venv-torch-2.11.0")
      else()
        set(_venv "$ENV{USERPROFILE}/.cache/stepscope/venv-torch-2.11.0")
      endif()
    endif()
    # A POSIX virtual environment keeps its interpreter in bin/, a Windows one in Scripts/.
    if(EXISTS "${_venv}/bin/python")
      set(_py "${_venv}/bin/python")
    elseif(EXISTS "${_venv}/Scripts/python.exe")
      set(_py "${_venv}/Scripts/python.exe")
    else()
      # Into a variable of its own: find_program's cache entry would stay hidden behind the
      # normal variable _py set above (policy CMP0125), leaving _py empty.
      find_program(STEPSCOPE_FOUND_PYTHON NAMES python3 python)
      set(_py "${STEPSCOPE_FOUND_PYTHON}")
    endif()
  endif()
  execute_process(COMMAND "${_py}" -c "import torch; print(torch.utils.cmake_prefix_path)"
                  OUTPUT_VARIABLE _torch_prefix OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE _rc ERROR_QUIET)
  if(_rc EQUAL 0 AND _torch_prefix)
    list(APPEND CMAKE_PREFIX_PATH "${_torch_prefix}")
    message(STATUS "LibTorch from ${_py}: ${_torch_prefix}")
  else()
    message(WARNING "Could not import torch with '${_py}'. Run scripts/bootstrap.sh, or pass -DSTEPSCOPE_PYTHON=/path/to/python or -DTorch_DIR=...")
  endif()
endif()
