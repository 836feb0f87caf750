# Writes a C++ header holding a text file as a string constant (the playground page, so
# that `tinylm serve` needs no files beside the binary):
#   cmake -DINPUT=page.html -DOUTPUT=page.h -DNAME=kPage -P embed_text.cmake
file(READ "${INPUT}" text)
string(FIND "${text}" ")tinylm_embed\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw string's delimiter")
endif()
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${INPUT} by cmake/embed_text.cmake; do not edit.\n"
  "#pragma once\n"
  "inline constexpr const char ${NAME}[] = R\"tinylm_embed(${text})tinylm_embed\";\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
