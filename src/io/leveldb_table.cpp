#include "io/leveldb_table.h"

#include <algorithm>

#include "io/byte_cursor.h"
#include "io/crc32c.h"
#include "util/error.h"

namespace tinylm {

namespace {

struct BlockHandle {
  uint64_t offset = 0;
  uint64_t size = 0;
};

BlockHandle read_handle(ByteCursor& in) {
  BlockHandle h;
  h.offset = in.varint64();
  h.size = in.varint64();
  return h;
}

struct Footer {
  BlockHandle metaindex, index;
};

Footer read_footer(std::string_view file, const std::string& what) {
  require(file.size() >= kTableFooterSize, [&] {
    return what + ": truncated (" + std::to_string(file.size()) +
           " bytes, shorter than the 48-byte footer of a TensorFlow index / LevelDB table)";
  });
  const std::string_view footer = file.substr(file.size() - kTableFooterSize);
  ByteCursor magic(footer.substr(kTableFooterSize - 8), what + ": footer");
  require(magic.fixed64() == kTableMagic, [&] {
    return what + ": bad magic number (not a TensorFlow index / LevelDB table, or truncated)";
  });
  ByteCursor in(footer.substr(0, kTableFooterSize - 8), what + ": footer");
  Footer f;
  f.metaindex = read_handle(in);
  f.index = read_handle(in);
  return f;
}

// The bytes of the block `h` points to, after checking that it and its trailer lie before
// the footer, its checksum and its compression type.
std::string_view block_contents(std::string_view file, BlockHandle h, const std::string& what) {
  const uint64_t end = file.size() - kTableFooterSize;  // where the footer starts
  const std::string where = what + ": block at offset " + std::to_string(h.offset);
  require(
      h.offset <= end && h.size <= end - h.offset && kBlockTrailerSize <= end - h.offset - h.size,
      [&] {
        return where + " (" + std::to_string(h.size) + " bytes) runs past the end of the " +
               "file (" + std::to_string(file.size()) + " bytes; truncated?)";
      });
  const std::string_view block = file.substr(h.offset, h.size + 1);  // contents + type byte
  ByteCursor trailer(file.substr(h.offset + h.size + 1, 4), where);
  require(crc32c_unmask(trailer.fixed32()) == crc32c(block),
          [&] { return where + ": checksum mismatch (the file is corrupt)"; });
  const auto type = static_cast<unsigned char>(block.back());
  require(type != 1, [&] {
    return where + ": snappy-compressed; tinylm reads uncompressed tables only (TensorFlow " +
           "writes checkpoint indexes uncompressed)";
  });
  require(type == 0, [&] { return where + ": unknown compression type " + std::to_string(type); });
  return block.substr(0, h.size);
}

// Counts the bytes of keys and values decoded so far against kMaxTableDecodedBytes.
struct DecodeBudget {
  const std::string& what;
  size_t used = 0;
  void spend(size_t n) {
    used += n;
    require(used <= kMaxTableDecodedBytes, [&] {
      return what + ": decodes to more than " + std::to_string(kMaxTableDecodedBytes) +
             " bytes of keys and values (not a checkpoint index)";
    });
  }
};

// The restart array at the end of a block: its offsets, and where the entries end.
struct Restarts {
  std::vector<uint32_t> offsets;
  size_t entries_end = 0;
};

Restarts read_restarts(std::string_view block, const std::string& where) {
  require(block.size() >= 4, [&] { return where + ": too short for a restart count"; });
  ByteCursor count(block.substr(block.size() - 4), where);
  const uint64_t n = count.fixed32();
  require(n <= (block.size() - 4) / 4,
          [&] { return where + ": restart count " + std::to_string(n) + " too large"; });
  Restarts r;
  r.entries_end = block.size() - 4 - 4 * n;
  ByteCursor in(block.substr(r.entries_end, 4 * n), where);
  for (uint64_t i = 0; i < n; ++i) r.offsets.push_back(in.fixed32());
  return r;
}

// One entry decoded against the previous key (entry.key on entry); returns its `shared`.
uint32_t read_entry(ByteCursor& in, const std::string& where, TableEntry& entry) {
  const uint32_t shared = in.varint32();
  const uint32_t non_shared = in.varint32();
  const uint32_t value_size = in.varint32();
  require(shared <= entry.key.size(), [&] {
    return where + ": entry shares " + std::to_string(shared) + " bytes of a " +
           std::to_string(entry.key.size()) + "-byte previous key";
  });
  require(uint64_t{shared} + non_shared <= kMaxTableKeyBytes, [&] {
    return where + ": key longer than " + std::to_string(kMaxTableKeyBytes) + " bytes";
  });
  const std::string_view delta = in.bytes(non_shared);
  entry.key.resize(shared);
  entry.key.append(delta);
  entry.value.assign(in.bytes(value_size));
  return shared;
}

// Every restart offset must be the start of an entry that shares nothing with the previous
// key (`fresh`: those starts, ascending); an empty block may list offset 0.
void check_restarts(const Restarts& r, const std::vector<uint32_t>& fresh,
                    const std::string& where) {
  for (size_t i = 0; i < r.offsets.size(); ++i) {
    const uint32_t at = r.offsets[i];
    const bool ok = std::binary_search(fresh.begin(), fresh.end(), at) ||
                    (fresh.empty() && r.entries_end == 0 && at == 0);
    require(ok && (i == 0 || at > r.offsets[i - 1]), [&] {
      return where + ": restart offset " + std::to_string(at) + " is not the start of an entry";
    });
  }
}

// Appends the entries of one block to out; keys strictly increasing within the block.
void read_block(std::string_view block, const std::string& where, DecodeBudget& budget,
                std::vector<TableEntry>& out) {
  const Restarts restarts = read_restarts(block, where);
  ByteCursor in(block.substr(0, restarts.entries_end), where);
  std::vector<uint32_t> fresh;  // offsets of entries with shared == 0
  TableEntry entry;
  for (size_t n = 0; !in.at_end(); ++n) {
    const auto start = static_cast<uint32_t>(in.position());
    if (read_entry(in, where, entry) == 0) fresh.push_back(start);
    require(n == 0 || entry.key > out.back().key,
            [&] { return where + ": keys out of order at entry " + std::to_string(n); });
    budget.spend(entry.key.size() + entry.value.size());
    out.push_back(entry);
  }
  check_restarts(restarts, fresh, where);
}

}  // namespace

std::vector<TableEntry> read_leveldb_table(std::string_view file, const std::string& what) {
  const Footer footer = read_footer(file, what);
  DecodeBudget budget{what};
  std::vector<TableEntry> index;
  const std::string index_where =
      what + ": index block at offset " + std::to_string(footer.index.offset);
  read_block(block_contents(file, footer.index, what), index_where, budget, index);
  std::vector<TableEntry> out;
  uint64_t next_offset = 0;  // data blocks come in order, one after another
  for (const TableEntry& e : index) {
    ByteCursor in(e.value, index_where + ": block handle");
    const BlockHandle h = read_handle(in);
    require(in.at_end() && h.offset >= next_offset, [&] {
      return index_where + ": bad block handle (offset " + std::to_string(h.offset) + ")";
    });
    const size_t first = out.size();
    const std::string where = what + ": block at offset " + std::to_string(h.offset);
    read_block(block_contents(file, h, what), where, budget, out);
    next_offset = h.offset + h.size + kBlockTrailerSize;
    require(first == 0 || first == out.size() || out[first].key > out[first - 1].key,
            [&] { return where + ": keys out of order with the previous block"; });
    require(first == out.size() || out.back().key <= e.key,
            [&] { return where + ": keys beyond its index entry (the index is corrupt)"; });
  }
  return out;
}

}  // namespace tinylm
