# What `cmake --install` puts where, and the Debian package CPack makes of it
# (`scripts/dev package`: `cpack -G DEB` in build/release).
#
# The package holds the statically linked binary, so it depends on nothing; a
# build that links togmal dynamically (the sanitizer builds) can still be
# packaged for inspection, but that package would not run on another machine.
include(GNUInstallDirs)

# togmal(1), generated from the built binary's --help texts at build time.
set(TOGMAL_MAN_PAGE ${PROJECT_BINARY_DIR}/man/togmal.1.gz)
add_custom_command(
  OUTPUT ${TOGMAL_MAN_PAGE}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/man
  COMMAND ${CMAKE_COMMAND} -DTOGMAL=$<TARGET_FILE:togmal> -DVERSION=${PROJECT_VERSION}
          -DOUTPUT=${TOGMAL_MAN_PAGE} -P ${PROJECT_SOURCE_DIR}/cmake/GenerateManPage.cmake
  DEPENDS togmal ${PROJECT_SOURCE_DIR}/cmake/GenerateManPage.cmake
  COMMENT "Generating togmal.1 from togmal --help"
  VERBATIM)
add_custom_target(togmal_man_page ALL DEPENDS ${TOGMAL_MAN_PAGE})

install(TARGETS togmal RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${TOGMAL_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
# The README links to docs/*.md: keeping that layout keeps its links working.
set(TOGMAL_DOC_DIR ${CMAKE_INSTALL_DATAROOTDIR}/doc/togmal)
install(FILES README.md DESTINATION ${TOGMAL_DOC_DIR})
install(DIRECTORY docs/ DESTINATION ${TOGMAL_DOC_DIR}/docs FILES_MATCHING PATTERN "*.md")
# The audit shipping timer for machines that only run the hook (docs/shipping.md): user
# units in Debian's place for them, so `systemctl --user enable --now togmal-ship.timer`
# finds them.
install(FILES packaging/systemd/togmal-ship.service packaging/systemd/togmal-ship.timer
        DESTINATION lib/systemd/user)
# Debian keeps a package's licence in /usr/share/doc/PACKAGE/copyright.
install(FILES LICENSE DESTINATION ${TOGMAL_DOC_DIR} RENAME copyright)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME togmal)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "The togmal authors")
set(CPACK_PACKAGE_CONTACT "The togmal authors <togmal@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
# Directories 0755 whatever the umask of the machine that builds the package.
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
    OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
# togmal_VERSION_ARCH.deb, Debian's own naming.
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
# The synopsis line is CPACK_PACKAGE_DESCRIPTION_SUMMARY; this is the text below it.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "One statically linked binary that is both an MCP stdio server (analysis of
prompts and responses for known LLM failure modes, a taxonomy of evidence, a
policy check for tool calls) and a pre-tool hook for AI agent hosts such as
Claude Code, Gemini CLI, Codex, Copilot CLI and Cursor. Every decision is kept
in a hash-chained audit trail. `togmal install claude-code` sets it up.")
include(CPack)
