# Writes togmal(1) from the binary's own --help texts, so the man page can never
# drift from the command line it documents.
#
#   cmake -DTOGMAL=path/to/togmal -DVERSION=0.1.0 -DOUTPUT=togmal.1.gz \
#         [-DGZIP=/usr/bin/gzip] -P GenerateManPage.cmake
#
# Every subcommand listed under "Subcommands:" in `togmal --help` gets a section
# with its `--help`, and so does each of its own subcommands (`rules validate`,
# `audit tail`, ...). The help texts are kept verbatim in no-fill blocks; only
# roff's special characters are escaped.
cmake_minimum_required(VERSION 3.25)
foreach(required TOGMAL VERSION OUTPUT)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "GenerateManPage.cmake: -D${required}=... is required")
  endif()
endforeach()
if(NOT GZIP)
  # gzip is in every Debian system (Essential: yes).
  find_program(GZIP gzip REQUIRED)
endif()

# The help text of `togmal ARGS... --help`, with the binary's path in the usage
# line replaced by its installed name.
function(togmal_help out)
  execute_process(
    COMMAND ${TOGMAL} ${ARGN} --help
    OUTPUT_VARIABLE text
    ERROR_VARIABLE error
    RESULT_VARIABLE status
    TIMEOUT 30)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "`togmal ${ARGN} --help` failed (${status}): ${error}")
  endif()
  string(REPLACE "Usage: ${TOGMAL}" "Usage: togmal" text "${text}")
  string(STRIP "${text}" text)
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# The subcommand names a CLI11 help text lists under "Subcommands:".
function(subcommands_of help out)
  set(names "")
  string(FIND "${help}" "\nSubcommands:\n" start)
  if(start GREATER_EQUAL 0)
    string(SUBSTRING "${help}" ${start} -1 section)
    string(REPLACE "\n" ";" lines "${section}")
    foreach(line IN LISTS lines)
      if(line MATCHES "^  ([a-z][a-z0-9-]*)( |$)")
        list(APPEND names ${CMAKE_MATCH_1})
      endif()
    endforeach()
  endif()
  set(${out} ${names} PARENT_SCOPE)
endfunction()

# Text made safe for roff: backslashes, hyphens (so they stay ASCII minus
# signs and can be searched for), and lines that would start a request.
function(roff_escape text out)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REPLACE "-" "\\-" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

function(verbatim_block text out)
  roff_escape("${text}" escaped)
  set(${out} ".nf\n${escaped}\n.fi\n" PARENT_SCOPE)
endfunction()

togmal_help(top)
subcommands_of("${top}" commands)
if(NOT commands)
  message(FATAL_ERROR "`togmal --help` lists no subcommands:\n${top}")
endif()

# The first line of `togmal --help` is the one-line description.
string(REGEX MATCH "^[^\n]*" summary "${top}")
string(REGEX REPLACE "^togmal: *" "" summary "${summary}")
string(REGEX REPLACE "\\.$" "" summary "${summary}")
roff_escape("${summary}" summary)

set(page ".TH TOGMAL 1 \"\" \"togmal ${VERSION}\" \"User Commands\"\n")
string(APPEND page ".SH NAME\ntogmal \\- ${summary}\n")
string(APPEND page ".SH SYNOPSIS\n.B togmal\n[\\fIOPTIONS\\fR] \\fISUBCOMMAND\\fR [\\fIARGS\\fR...]\n")
verbatim_block("${top}" block)
string(APPEND page ".SH DESCRIPTION\n${block}")
string(APPEND page ".SH SUBCOMMANDS\n")
foreach(command IN LISTS commands)
  togmal_help(help ${command})
  verbatim_block("${help}" block)
  string(APPEND page ".SS togmal ${command}\n${block}")
  subcommands_of("${help}" nested)
  foreach(sub IN LISTS nested)
    togmal_help(help ${command} ${sub})
    verbatim_block("${help}" block)
    string(APPEND page ".SS togmal ${command} ${sub}\n${block}")
  endforeach()
endforeach()
string(APPEND page ".SH FILES\n"
  ".TP\n.I ~/.config/togmal/\n"
  "Your settings.yaml, rules.yaml, detectors.yaml and classifier.yaml override the built\\-in defaults.\n"
  ".TP\n.I .togmal/rules.yaml\n"
  "A project's rules; they may only tighten the policy.\n"
  ".TP\n.I ~/.local/share/togmal/togmal.db\n"
  "The evidence taxonomy and the hash\\-chained audit trail (\\fB$TOGMAL_DB\\fR or \\fB\\-\\-db\\fR elsewhere).\n")
string(APPEND page ".SH SEE ALSO\n"
  "/usr/share/doc/togmal/README.md and the documents in /usr/share/doc/togmal/docs/.\n")

if(NOT OUTPUT MATCHES "\\.gz$")
  message(FATAL_ERROR "OUTPUT must end in .gz: ${OUTPUT}")
endif()
string(REGEX REPLACE "\\.gz$" "" plain "${OUTPUT}")
file(WRITE "${plain}" "${page}")
# -n: no name or timestamp in the header, so the same help texts give the same bytes.
execute_process(
  COMMAND ${GZIP} -9 -n -f "${plain}"
  RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "gzip ${plain} failed (${status})")
endif()
