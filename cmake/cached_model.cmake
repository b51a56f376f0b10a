# Runs the built-in model's trainer, or copies its output from an earlier run
# with the same inputs (cmake -P, called by src/analysis/CMakeLists.txt).
#
# Training takes about 40 s optimised and 2 minutes under the sanitizers, and
# every build tree (dev, asan, release) trains the same model: the output is
# byte-identical across build types but for its `trained_at` time (checked
# 2026-11-29 on the dev, asan and bench trees). So the output is kept under a
# key made of everything that decides it: the corpus, the catalogue, the
# trainer's sources, the libraries it links and the compiler's version.
#
# Variables: TRAINER (the program), ARGS (its arguments before the output
# file, a list), OUTPUT, OPTIONS (its arguments after it, a list), INPUTS (a
# file listing the input files, one per line), SOURCE_DIR (left out of the
# key, so that two checkouts share outputs), COMPILER (its id and version),
# CACHE_DIR (where outputs are kept; empty: no cache).

set(keep 4)  # outputs kept (44 MB each); the oldest beyond these are removed

function(train)
  execute_process(COMMAND ${TRAINER} ${ARGS} ${OUTPUT} ${OPTIONS} RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "training the built-in model failed (${status})")
  endif()
endfunction()

if(CACHE_DIR STREQUAL "")
  train()
  return()
endif()

file(STRINGS ${INPUTS} input_files)
set(material "${COMPILER}\n${ARGS}\n${OPTIONS}\n")
string(REPLACE "${SOURCE_DIR}" "<source>" material "${material}")
foreach(input IN LISTS input_files)
  file(SHA256 ${input} digest)
  string(APPEND material "${digest}\n")
endforeach()
string(SHA256 key "${material}")
set(cached ${CACHE_DIR}/builtin_model_data-${key}.cpp)

if(EXISTS ${cached})
  file(COPY_FILE ${cached} ${OUTPUT})
  file(TOUCH_NOCREATE ${cached})  # most recently used
  message(STATUS "built-in model: reused ${cached}")
  return()
endif()

train()

# Written under a temporary name and renamed, so that a build stopped halfway
# never leaves a partial file under a key another tree would trust.
file(MAKE_DIRECTORY ${CACHE_DIR})
string(RANDOM LENGTH 12 suffix)
file(COPY_FILE ${OUTPUT} ${cached}.${suffix}.tmp)
file(RENAME ${cached}.${suffix}.tmp ${cached})

file(GLOB kept ${CACHE_DIR}/builtin_model_data-*.cpp)
list(LENGTH kept count)
while(count GREATER keep)
  list(GET kept 0 oldest)
  foreach(file IN LISTS kept)
    if("${oldest}" IS_NEWER_THAN "${file}")
      set(oldest ${file})
    endif()
  endforeach()
  file(REMOVE ${oldest})
  list(REMOVE_ITEM kept ${oldest})
  math(EXPR count "${count} - 1")
endwhile()
