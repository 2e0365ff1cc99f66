// SPDX-License-Identifier: Apache-2.0
// RAII over the SQLite C API: a read-only database and its prepared statements, stepped row by row
// (rows stream; nothing is loaded whole). Built only where sqlite3.h exists (PB_HAVE_SQLITE).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

struct sqlite3;
struct sqlite3_stmt;

namespace pipebench {

// A failing SQLite call after the file was opened (a damaged file shows up here, mid-read).
class SqliteError : public Error {
 public:
  using Error::Error;
};

class SqliteStatement {
 public:
  SqliteStatement(sqlite3* db, const std::string& sql);  // throws SqliteError
  SqliteStatement(SqliteStatement&&) noexcept = default;
  SqliteStatement& operator=(SqliteStatement&&) noexcept = default;

  // true: a row is there; false: done. Throws SqliteError naming the statement.
  bool step();
  void reset();
  void bind(int index, std::int64_t value);  // 1-based, as sqlite3_bind_*
  [[nodiscard]] bool is_null(int col) const;
  // SQLITE_INTEGER storage: a TEXT or BLOB value would read as 0 through int64() and sort after every
  // number in ORDER BY (SQLite's datatype doc, 4.1), so time columns are read only when this holds.
  [[nodiscard]] bool is_integer(int col) const;
  [[nodiscard]] std::int64_t int64(int col) const;
  [[nodiscard]] std::string_view text(int col) const;  // valid until the next step

 private:
  struct Finalize {
    void operator()(sqlite3_stmt* s) const;
  };
  sqlite3* db_ = nullptr;
  std::unique_ptr<sqlite3_stmt, Finalize> stmt_;
  std::string sql_;
};

class SqliteDb {
 public:
  // Opens read-only. Throws UsageError naming the file when it cannot be opened or is not a database.
  explicit SqliteDb(const std::string& path);

  [[nodiscard]] SqliteStatement prepare(const std::string& sql) const { return SqliteStatement(db_.get(), sql); }
  // Tables only: a view is a query that may never end (WITH RECURSIVE), and nsys export writes tables.
  [[nodiscard]] std::vector<std::string> tables() const;
  [[nodiscard]] std::vector<std::string> views() const;
  [[nodiscard]] std::vector<std::string> columns(const std::string& table) const;  // PRAGMA table_info
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  struct Close {
    void operator()(sqlite3* db) const;
  };
  std::unique_ptr<sqlite3, Close> db_;
  std::string path_;
};

}  // namespace pipebench
