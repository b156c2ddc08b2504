# Writes stepscope-cli's bash completion and manual page from the CLI itself, so that they list
# exactly the options its parser knows (app/cli/cli_options.cpp holds the one table).
#   cmake -DCLI=path/to/stepscope-cli -DCOMPLETION=out/stepscope-cli -DMAN=out/stepscope-cli.1 -P generate_cli_docs.cmake
# A sanitizer build's leak report at exit would fail the build for nothing: leaks are not checked here.
set(ENV{ASAN_OPTIONS} "detect_leaks=0")
foreach(output COMPLETION MAN)
  get_filename_component(_dir "${${output}}" DIRECTORY)
  file(MAKE_DIRECTORY "${_dir}")
endforeach()
execute_process(COMMAND "${CLI}" completion bash OUTPUT_FILE "${COMPLETION}" RESULT_VARIABLE _completion)
execute_process(COMMAND "${CLI}" man OUTPUT_FILE "${MAN}" RESULT_VARIABLE _man)
if(NOT _completion EQUAL 0 OR NOT _man EQUAL 0)
  file(REMOVE "${COMPLETION}" "${MAN}")
  message(FATAL_ERROR "stepscope-cli could not print its completion (${_completion}) or manual page (${_man})")
endif()
