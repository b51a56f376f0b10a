# togmal_compile_config(TOOL <target> INPUT <config/x.yaml> OUTPUT <generated.cpp> [SYMBOL <name>])
# Runs a build-time compiler of a config file (src/*/compile_*.cpp) so that the
# file is validated when togmal is built and a process reads it without yaml-cpp.
# SYMBOL: the name the generated source defines, for tools that take one.
function(togmal_compile_config)
  cmake_parse_arguments(ARG "" "TOOL;INPUT;OUTPUT;SYMBOL" "" ${ARGN})
  get_filename_component(name ${ARG_INPUT} NAME)
  add_custom_command(
    OUTPUT ${ARG_OUTPUT}
    COMMAND ${ARG_TOOL} ${ARG_INPUT} ${ARG_OUTPUT} ${ARG_SYMBOL}
    DEPENDS ${ARG_TOOL} ${ARG_INPUT}
    COMMENT "Compiling ${name}"
    VERBATIM)
endfunction()
