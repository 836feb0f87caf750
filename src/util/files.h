// Reading whole files and writing them atomically (temp file + rename), so a failing
// or killed run never leaves a half-written file where a good one was.
#pragma once
#include <string>
#include <string_view>

namespace tinylm {

// Reads a whole file; throws InputError naming the path if it cannot be opened.
std::string read_file(const std::string& path);

// Writes `bytes` to `path + ".tmp"`, flushes it to disk, then renames it over `path`.
void write_file_atomic(const std::string& path, std::string_view bytes);

bool file_exists(const std::string& path);

}  // namespace tinylm
