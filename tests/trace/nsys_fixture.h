// SPDX-License-Identifier: Apache-2.0
// Builds small Nsight Systems SQLite exports for the tests (and the trace benchmark) from the documented
// schema (trace-formats.md C1: exact column names and NOT NULL flags), since no small public .sqlite
// sample exists. Header-only; needs sqlite3.h (PB_HAVE_SQLITE).
#pragma once

#if PB_HAVE_SQLITE

#include <sqlite3.h>

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace pipebench::testing {

struct NsysFixtureOptions {
  bool short_name = true;       // false: the kernel table of older exports, demangledName only
  bool runtime = true;          // CUPTI_ACTIVITY_KIND_RUNTIME
  bool nvtx = true;             // NVTX_EVENTS
  bool event_type_enum = true;  // ENUM_NSYS_EVENT_TYPE
  bool gpu_info = true;         // TARGET_INFO_GPU
};

class NsysFixture {
 public:
  static constexpr std::int64_t kPushPop = 59, kStartEnd = 60, kMark = 34;

  // serialized GlobalId: VM/host bits above 48, PID in bits 24-47, TID in 0-23 (C1).
  static std::int64_t global_tid(std::int64_t pid, std::int64_t tid) {
    return (std::int64_t{3} << 48) | (pid << 24) | tid;
  }
  static std::int64_t global_pid(std::int64_t pid) { return (std::int64_t{3} << 48) | (pid << 24); }

  NsysFixture(const std::string& path, NsysFixtureOptions o = {}) : path_(path), o_(o) {
    std::remove(path.c_str());
    if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) throw std::runtime_error("sqlite3_open " + path);
    exec("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN");
    exec("CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL)");
    exec("CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT)");
    exec("INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.28.1')");
    if (o.event_type_enum) {
      exec(
          "CREATE TABLE ENUM_NSYS_EVENT_TYPE (id INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL, label TEXT NOT "
          "NULL)");
      exec(
          "INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES (33, 'NvtxCategory', 'NVTX Category'), (34, 'NvtxMark', 'NVTX "
          "Mark'), "
          "(39, 'NvtxThread', 'NVTX Thread'), (59, 'NvtxPushPopRange', 'NVTX PushPop Range'), "
          "(60, 'NvtxStartEndRange', 'NVTX StartEnd Range'), (75, 'NvtxDomainCreate', 'NVTX Domain Create')");
    }
    if (o.gpu_info) {
      exec(
          "CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, busLocation TEXT, "
          "isDiscrete INTEGER, l2CacheSize INTEGER, totalMemory INTEGER, memoryBandwidth INTEGER, clockRate INTEGER, "
          "smCount INTEGER, pwGpuId INTEGER, uuid TEXT, luid INTEGER, chipName TEXT, cuDevice INTEGER, "
          "computeMajor INTEGER, computeMinor INTEGER)");
    }
    exec(std::string("CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, ") +
         "deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, "
         "correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL, " +
         (o.short_name ? "shortName INTEGER NOT NULL, " : "") +
         "mangledName INTEGER, launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL, "
         "gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, "
         "blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL, "
         "dynamicSharedMemory INTEGER NOT NULL, localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT "
         "NULL, "
         "gridId INTEGER NOT NULL, sharedMemoryExecuted INTEGER, graphNodeId INTEGER, graphId INTEGER)");
    if (o.runtime) {
      exec(
          "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, "
          "eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, "
          "returnValue INTEGER NOT NULL, callchainId INTEGER)");
    }
    if (o.nvtx) {
      exec(
          "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER, "
          "category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, "
          "domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER, "
          "int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT)");
    }
  }
  ~NsysFixture() { close(); }
  NsysFixture(const NsysFixture&) = delete;
  NsysFixture& operator=(const NsysFixture&) = delete;

  void exec(const std::string& sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      const std::string msg = err ? err : "?";
      sqlite3_free(err);
      throw std::runtime_error("fixture SQL failed: " + msg + " in: " + sql);
    }
  }

  // A StringIds entry (a new id per call).
  std::int64_t str(const std::string& value) {
    const std::int64_t id = next_id_++;
    exec("INSERT INTO StringIds VALUES (" + std::to_string(id) + ", " + quote(value) + ")");
    return id;
  }

  void gpu(int id, const std::string& name) {
    exec("INSERT INTO TARGET_INFO_GPU (vmId, id, name) VALUES (0, " + std::to_string(id) + ", " + quote(name) + ")");
  }

  // A kernel; name_id from str() (or a missing id to test skipping). The demangled name gets its own id.
  void kernel(int device, std::int64_t stream, std::int64_t start, std::int64_t end, std::int64_t name_id,
              std::int64_t correlation, std::int64_t pid, std::int64_t demangled_id = -1) {
    const std::string d = std::to_string(demangled_id >= 0 ? demangled_id : name_id);
    exec(
        std::string("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, correlationId, "
                    "globalPid, demangledName, ") +
        (o_.short_name ? "shortName, " : "") +
        "registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory, "
        "localMemoryPerThread, localMemoryTotal, gridId) VALUES (" +
        std::to_string(start) + ", " + std::to_string(end) + ", " + std::to_string(device) + ", 1, " +
        std::to_string(stream) + ", " + std::to_string(correlation) + ", " + std::to_string(global_pid(pid)) + ", " +
        d + ", " + (o_.short_name ? std::to_string(name_id) + ", " : "") + "32, 1, 1, 1, 128, 1, 1, 0, 0, 0, 0, " +
        std::to_string(++grid_id_) + ")");
  }

  void runtime(std::int64_t pid, std::int64_t tid, std::int64_t start, std::int64_t end, std::int64_t correlation,
               std::int64_t name_id) {
    exec("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (" + std::to_string(start) + ", " + std::to_string(end) +
         ", 1, " + std::to_string(global_tid(pid, tid)) + ", " + std::to_string(correlation) + ", " +
         std::to_string(name_id) + ", 0, NULL)");
  }

  // An NVTX event; text inline (registered = false) or through StringIds.textId (registered = true).
  void nvtx(std::int64_t pid, std::int64_t tid, std::int64_t start, std::int64_t end, const std::string& text,
            bool registered = false, std::int64_t type = kPushPop) {
    const std::string end_sql = end < 0 ? "NULL" : std::to_string(end);
    if (registered) {
      const auto id = str(text);
      exec("INSERT INTO NVTX_EVENTS (start, end, eventType, globalTid, textId) VALUES (" + std::to_string(start) +
           ", " + end_sql + ", " + std::to_string(type) + ", " + std::to_string(global_tid(pid, tid)) + ", " +
           std::to_string(id) + ")");
    } else {
      exec("INSERT INTO NVTX_EVENTS (start, end, eventType, globalTid, text) VALUES (" + std::to_string(start) + ", " +
           end_sql + ", " + std::to_string(type) + ", " + std::to_string(global_tid(pid, tid)) + ", " + quote(text) +
           ")");
    }
  }

  // A push/pop range with a registered name and an exported payload in jsonText (empty: NULL), as
  // NCCL's own ranges ("ncclAllReduce") are exported with --include-json.
  void nvtx_json(std::int64_t pid, std::int64_t tid, std::int64_t start, std::int64_t end, const std::string& text,
                 const std::string& json_text) {
    exec("INSERT INTO NVTX_EVENTS (start, end, eventType, globalTid, textId, jsonText) VALUES (" +
         std::to_string(start) + ", " + std::to_string(end) + ", " + std::to_string(kPushPop) + ", " +
         std::to_string(global_tid(pid, tid)) + ", " + std::to_string(str(text)) + ", " +
         (json_text.empty() ? std::string("NULL") : quote(json_text)) + ")");
  }

  // Commits and closes; the file is then ready to read.
  void close() {
    if (db_ == nullptr) return;
    sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr);
    sqlite3_close(db_);
    db_ = nullptr;
  }

  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] sqlite3* db() const { return db_; }

 private:
  static std::string quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
    return out + "'";
  }

  std::string path_;
  NsysFixtureOptions o_;
  sqlite3* db_ = nullptr;
  std::int64_t next_id_ = 1;
  std::int64_t grid_id_ = 0;
};

}  // namespace pipebench::testing

#endif  // PB_HAVE_SQLITE
