# libstrata.cmake - the distributable client library, libstrata, built from the sources
# of the internal libraries it needs (client, rpc, zk, common, proto), compiled once more
# as position-independent code; included from the top-level CMakeLists.txt. In-tree
# programs keep linking those static libraries, built as before.
#
#   libstrata.so  shared, SONAME libstrata.so.${LIBSTRATA_SOVERSION}; a linker version
#                 script (client/libstrata.map) exports strata_* only
#   libstrata.a   static: one relocatable object (ld -r) whose globals other than
#                 strata_* are made local (objcopy), so an application with its own
#                 buf_append or log_write links with it
#
# `cmake --install build --prefix P` puts both in P/lib with P/include/strata/*.h and
# P/lib/pkgconfig/strata.pc. The symbol rule is checked by tests/check_symbols.sh (test
# "libstrata_symbols"); the install by tests/integration/test_install.c, which builds
# every examples/*.c against the installed copy and runs it on a cluster.
set(LIBSTRATA_VERSION 0.1.0)
set(LIBSTRATA_SOVERSION 0)
set(LIBSTRATA_PARTS strata_client strata_rpc strata_zk strata_common strata_proto)

# <part>_pic: the part's sources with its compile settings (taken by linking the part,
# which also orders the generated protobuf-c sources before their second compile).
set(LIBSTRATA_OBJECTS)
set(LIBSTRATA_PIC)
foreach(part ${LIBSTRATA_PARTS})
  get_target_property(part_src ${part} SOURCES)
  add_library(${part}_pic OBJECT ${part_src})
  set_target_properties(${part}_pic PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_link_libraries(${part}_pic PRIVATE ${part})
  list(APPEND LIBSTRATA_OBJECTS $<TARGET_OBJECTS:${part}_pic>)
  list(APPEND LIBSTRATA_PIC ${part}_pic)
endforeach()

# ---- shared ----
add_library(strata_shared SHARED ${LIBSTRATA_OBJECTS})
set_target_properties(strata_shared PROPERTIES
  OUTPUT_NAME strata
  VERSION ${LIBSTRATA_VERSION}
  SOVERSION ${LIBSTRATA_SOVERSION}
  LINK_DEPENDS ${CMAKE_SOURCE_DIR}/client/libstrata.map)
target_link_options(strata_shared PRIVATE
  -Wl,--version-script=${CMAKE_SOURCE_DIR}/client/libstrata.map)
if(NOT STRATA_SANITIZE)
  # every symbol resolved at link time: the external libraries below are all it needs
  target_link_options(strata_shared PRIVATE -Wl,--no-undefined)
endif()
target_link_libraries(strata_shared PRIVATE PkgConfig::PROTOBUF_C PkgConfig::LIBEVENT
                      ${ZOOKEEPER_LIB} Threads::Threads m)
target_include_directories(strata_shared INTERFACE ${CMAKE_SOURCE_DIR}/client/include)

# ---- static ----
set(LIBSTRATA_STATIC ${CMAKE_BINARY_DIR}/libstrata.a)
add_custom_command(
  OUTPUT ${LIBSTRATA_STATIC}
  COMMAND ${CMAKE_LINKER} -r -o libstrata_all.o ${LIBSTRATA_OBJECTS}
  COMMAND ${CMAKE_OBJCOPY} --wildcard "--keep-global-symbol=strata_[a-z0-9]*"
          libstrata_all.o libstrata.o
  COMMAND ${CMAKE_COMMAND} -E rm -f ${LIBSTRATA_STATIC}
  COMMAND ${CMAKE_AR} rcs ${LIBSTRATA_STATIC} libstrata.o
  COMMAND ${CMAKE_COMMAND} -E rm -f libstrata_all.o libstrata.o
  DEPENDS ${LIBSTRATA_PIC} ${LIBSTRATA_OBJECTS}
  WORKING_DIRECTORY ${CMAKE_BINARY_DIR}
  COMMAND_EXPAND_LISTS VERBATIM
  COMMENT "libstrata.a: one object, only strata_* global")
add_custom_target(strata_static ALL DEPENDS ${LIBSTRATA_STATIC})

# ---- install: <prefix>/lib/libstrata.{so,a}, <prefix>/include/strata, strata.pc ----
configure_file(${CMAKE_SOURCE_DIR}/client/strata.pc.in ${CMAKE_BINARY_DIR}/strata.pc @ONLY)
install(TARGETS strata_shared LIBRARY DESTINATION lib)
install(FILES ${LIBSTRATA_STATIC} DESTINATION lib)
install(FILES ${CMAKE_SOURCE_DIR}/client/include/strata/strata.h
              ${CMAKE_SOURCE_DIR}/client/include/strata/admin.h
        DESTINATION include/strata)
install(FILES ${CMAKE_BINARY_DIR}/strata.pc DESTINATION lib/pkgconfig)

# ---- the symbol rule (a unit test) ----
# The check also links a program defining buf_append and log_write with libstrata.a; it
# gets the compiler and the libraries libstrata.a needs.
set(LIBSTRATA_STATIC_DEPS ${PROTOBUF_C_LINK_LIBRARIES} ${LIBEVENT_LINK_LIBRARIES}
    ${ZOOKEEPER_LIB} -pthread -lm)
if(STRATA_SANITIZE)
  list(PREPEND LIBSTRATA_STATIC_DEPS -fsanitize=address,undefined)
endif()
add_test(NAME libstrata_symbols
         COMMAND bash ${CMAKE_SOURCE_DIR}/tests/check_symbols.sh $<TARGET_FILE:strata_shared>
                 ${LIBSTRATA_STATIC} ${CMAKE_C_COMPILER} ${CMAKE_SOURCE_DIR}/client/include
                 ${LIBSTRATA_STATIC_DEPS})
set_tests_properties(libstrata_symbols PROPERTIES LABELS unit)

# test_install (tests/integration/test_install.c) installs this build and compiles
# examples/*.c against the installed copy.
set(LIBSTRATA_EXAMPLE_FLAGS "")
if(STRATA_SANITIZE)
  set(LIBSTRATA_EXAMPLE_FLAGS "-fsanitize=address,undefined")
endif()
set_property(TEST test_install APPEND PROPERTY ENVIRONMENT
             "STRATA_BUILD_DIR=${CMAKE_BINARY_DIR}" "STRATA_SOURCE_DIR=${CMAKE_SOURCE_DIR}"
             "STRATA_CMAKE=${CMAKE_COMMAND}" "STRATA_CC=${CMAKE_C_COMPILER}"
             "STRATA_PKG_CONFIG=${PKG_CONFIG_EXECUTABLE}"
             "STRATA_EXAMPLE_FLAGS=${LIBSTRATA_EXAMPLE_FLAGS}")
