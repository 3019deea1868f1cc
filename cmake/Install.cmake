# Installing and packaging: `cmake --install` puts transformer-explorer and txcli in bin/, the
# assets in share/transformer-explorer/assets (the programs find them from their own folder,
# core/include/tx/asset_paths.h), a desktop entry and an icon; `cpack` makes a .deb of the same tree.
# The .deb is built without CUDA (TX_CUDA=OFF, CMakePresets.json "package"): the CUDA runtime is not
# a Debian package, so a package that needed it could not be installed with its dependencies.
include(GNUInstallDirs)

install(TARGETS txcli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET transformer-explorer)
  install(TARGETS transformer-explorer RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(FILES ${PROJECT_SOURCE_DIR}/packaging/transformer-explorer.desktop
          DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
  install(FILES ${PROJECT_SOURCE_DIR}/packaging/transformer-explorer.svg
          DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/assets/ DESTINATION ${CMAKE_INSTALL_DATADIR}/transformer-explorer/assets)
foreach(doc README.md LICENSE)
  if(EXISTS ${PROJECT_SOURCE_DIR}/${doc})
    install(FILES ${PROJECT_SOURCE_DIR}/${doc} DESTINATION ${CMAKE_INSTALL_DOCDIR})
  endif()
endforeach()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME transformer-explorer)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "Transformer Explorer")
set(CPACK_PACKAGE_CONTACT "Transformer Explorer developers <transformer-explorer@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Watch a Transformer compute, step by step, and train one live")
set(CPACK_PACKAGE_DESCRIPTION "A desktop app in which you type a sentence and watch a complete \
encoder-decoder Transformer translate it, one operation at a time: attention weights, masks, positional \
encodings, layer norms, decoding. It trains models live, and ships English-to-Spanish models. txcli runs \
the same models from a terminal.")
set(CPACK_DEBIAN_PACKAGE_SECTION education)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)   # the library packages from the binaries (dpkg-shlibdeps)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # transformer-explorer_VERSION_ARCH.deb
set(CPACK_PACKAGE_INSTALL_DIRECTORY transformer-explorer)
include(CPack)
