# togmal_embed_files(OUTPUT <cpp> FILES <file>...)
# Generates, at build time, a C++ source that holds each file's bytes and a
# lookup by base name (see include/togmal/util/embedded.h). Regenerated when a
# file changes, so editing config/*.yaml and rebuilding is all it takes.
function(togmal_embed_files)
  cmake_parse_arguments(ARG "" "OUTPUT" "FILES" ${ARGN})
  add_custom_command(
    OUTPUT ${ARG_OUTPUT}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${ARG_OUTPUT} "-DFILES=${ARG_FILES}"
            -P ${PROJECT_SOURCE_DIR}/cmake/EmbedFilesScript.cmake
    DEPENDS ${ARG_FILES} ${PROJECT_SOURCE_DIR}/cmake/EmbedFilesScript.cmake
    COMMENT "Embedding config files"
    VERBATIM)
endfunction()
