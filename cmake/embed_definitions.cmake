# Writes OUTPUT, a C++ file holding every definitions/*.yaml as a string, so that the binary carries
# its catalog. Run at build time (see mapper/CMakeLists.txt) so that editing a definition re-embeds it.
file(GLOB files RELATIVE "${SOURCE_DIR}" "${SOURCE_DIR}/definitions/*.yaml")
list(SORT files)
set(body "")
foreach(file IN LISTS files)
  file(READ "${SOURCE_DIR}/${file}" text)
  string(FIND "${text}" ")KARTA\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${file} contains the raw-string delimiter )KARTA\"")
  endif()
  string(APPEND body "    {\"${file}\", R\"KARTA(${text})KARTA\"},\n")
endforeach()
file(WRITE "${OUTPUT}.tmp" "// Generated from definitions/ by cmake/embed_definitions.cmake. Do not edit.
#include \"mapper/catalog/embedded_definitions.h\"

namespace wm::catalog {

std::span<const EmbeddedFile> embedded_definition_files() {
  static const EmbeddedFile files[] = {
${body}  };
  return files;
}

}  // namespace wm::catalog
")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
