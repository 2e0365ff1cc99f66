// SPDX-License-Identifier: Apache-2.0
// SQLite handles.
#include "trace/sqlite_db.h"

#include <sqlite3.h>

namespace pipebench {

void SqliteStatement::Finalize::operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
void SqliteDb::Close::operator()(sqlite3* db) const { sqlite3_close(db); }

SqliteStatement::SqliteStatement(sqlite3* db, const std::string& sql) : db_(db), sql_(sql) {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &raw, nullptr) != SQLITE_OK) {
    sqlite3_finalize(raw);
    throw SqliteError("sqlite3_prepare_v2(" + sql.substr(0, 60) + "...): " + sqlite3_errmsg(db));
  }
  stmt_.reset(raw);
}

bool SqliteStatement::step() {
  const int rc = sqlite3_step(stmt_.get());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  throw SqliteError("sqlite3_step(" + sql_.substr(0, 60) + "...): " + sqlite3_errmsg(db_));
}

void SqliteStatement::reset() { sqlite3_reset(stmt_.get()); }

void SqliteStatement::bind(int index, std::int64_t value) {
  if (sqlite3_bind_int64(stmt_.get(), index, value) != SQLITE_OK) {
    throw SqliteError("sqlite3_bind_int64: " + std::string(sqlite3_errmsg(db_)));
  }
}

bool SqliteStatement::is_null(int col) const { return sqlite3_column_type(stmt_.get(), col) == SQLITE_NULL; }

bool SqliteStatement::is_integer(int col) const { return sqlite3_column_type(stmt_.get(), col) == SQLITE_INTEGER; }

std::int64_t SqliteStatement::int64(int col) const { return sqlite3_column_int64(stmt_.get(), col); }

std::string_view SqliteStatement::text(int col) const {
  const auto* p = sqlite3_column_text(stmt_.get(), col);
  if (p == nullptr) return {};
  return {reinterpret_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(stmt_.get(), col))};
}

SqliteDb::SqliteDb(const std::string& path) : path_(path) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
  db_.reset(raw);
  if (rc != SQLITE_OK) {
    throw UsageError(path + ": cannot open as SQLite (" + std::string(raw ? sqlite3_errmsg(raw) : "out of memory") +
                     ")");
  }
  // Reading the schema is the first access to the file: a damaged header shows up here.
  char* err = nullptr;
  if (sqlite3_exec(raw, "PRAGMA cache_size = -65536; SELECT count(*) FROM sqlite_master", nullptr, nullptr, &err) !=
      SQLITE_OK) {
    const std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    throw UsageError(path + ": not a readable SQLite database (" + msg + ")");
  }
}

std::vector<std::string> SqliteDb::tables() const {
  auto st = prepare("SELECT name FROM sqlite_master WHERE type = 'table'");
  std::vector<std::string> out;
  while (st.step()) out.emplace_back(st.text(0));
  return out;
}

std::vector<std::string> SqliteDb::views() const {
  auto st = prepare("SELECT name FROM sqlite_master WHERE type = 'view'");
  std::vector<std::string> out;
  while (st.step()) out.emplace_back(st.text(0));
  return out;
}

std::vector<std::string> SqliteDb::columns(const std::string& table) const {
  // PRAGMA table_info takes a name, not a bound parameter; quote it as an SQL identifier.
  std::string quoted = "\"";
  for (char c : table) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  quoted += '"';
  auto st = prepare("PRAGMA table_info(" + quoted + ")");
  std::vector<std::string> out;
  while (st.step()) out.emplace_back(st.text(1));
  return out;
}

}  // namespace pipebench
