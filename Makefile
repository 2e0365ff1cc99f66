# pipebench: one build for everything. `make` builds build/bin/pipebench; `make test` runs the suite;
# `make run` runs the main job; `make bench` runs the harness-overhead benchmark; `make deps` installs
# missing Debian packages (as root with apt) or names them; `make flag-tables` writes the subcommand
# pages' flag tables. The build shows one progress line; `V=1` shows every command. CUDA/NCCL come from
# CUDA_HOME/NCCL_HOME (default /usr/local/cuda, then the system paths); without them the NCCL backend is
# left out.
#
# The public targets first run `deps`, then a fresh make for the work, so that what `deps` just
# installed is detected (detection happens when a makefile is read).

SHELL := /bin/bash
.DEFAULT_GOAL := all
.PHONY: all deps test run bench clean install build-all test-all bench-all config format format-check function-size-check layer-check clang-check fuzz fuzz-smoke fuzz-random fuzz-libfuzzer flag-tables

CUDA_HOME ?= /usr/local/cuda
NCCL_HOME ?=
MPI_HOME ?=
BUILD ?= build
CXX ?= g++
ifeq ($(origin CXX),default)
CXX := g++
endif
NVCC_GENCODE ?= -gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_90,code=sm_90 \
                -gencode=arch=compute_90,code=compute_90
MAKEFLAGS += --no-print-directory
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

# A quiet build: one progress line (src/tools/build_progress.sh) instead of each compiler command; the
# compilers' warnings and errors still show. `make V=1 ...` prints every command instead.
V ?= 0
BUILD_PROGRESS := bash src/tools/build_progress.sh
ifeq ($(V),1)
Q :=
progress = :
quiet_make = $(MAKE) $(1)
else
Q := @
progress = $(BUILD_PROGRESS) step $(BUILD) $(1)
# $(call quiet_make,ARGS): the sub-make `make ARGS` with its progress: the files it will build are
# counted first by a dry run (make -n prints the progress steps it would run).
quiet_make = $(BUILD_PROGRESS) start $(BUILD) "$$($(MAKE) -n $(1) | grep -c 'build_progress.sh step')" && \
  { PB_BUILD_PROGRESS=1 $(MAKE) $(1); status=$$?; $(BUILD_PROGRESS) end $(BUILD); exit $$status; }
endif

# ---- detection --------------------------------------------------------------------------------
first_existing = $(firstword $(foreach f,$(1),$(wildcard $(f))))

NVCC := $(call first_existing,$(CUDA_HOME)/bin/nvcc)
CUDA_INC := $(if $(wildcard $(CUDA_HOME)/include/cuda_runtime.h),$(CUDA_HOME)/include,)
CUDA_LIB := $(call first_existing,$(CUDA_HOME)/lib64 $(CUDA_HOME)/lib)
NCCL_H := $(call first_existing,$(if $(NCCL_HOME),$(NCCL_HOME)/include/nccl.h) $(CUDA_HOME)/include/nccl.h /usr/include/nccl.h)
NCCL_INC := $(patsubst %/,%,$(dir $(NCCL_H)))
NCCL_SO := $(call first_existing,$(if $(NCCL_HOME),$(NCCL_HOME)/lib/libnccl.so) $(CUDA_LIB)/libnccl.so \
             /usr/lib/x86_64-linux-gnu/libnccl.so /lib/x86_64-linux-gnu/libnccl.so /usr/lib64/libnccl.so)
NCCL_LIB := $(patsubst %/,%,$(dir $(NCCL_SO)))
HAVE_CUBLAS = $(if $(and $(filter 1,$(HAVE_NCCL)),$(CUBLAS_SO)),1,0)
NCCL_FOUND := nvcc $(NVCC); nccl.h $(NCCL_H); libnccl $(NCCL_SO)
CUBLAS_SO := $(call first_existing,$(CUDA_LIB)/libcublas.so /usr/lib/x86_64-linux-gnu/libcublas.so)
HAVE_NCCL := $(if $(and $(NVCC),$(CUDA_INC),$(CUDA_LIB),$(NCCL_H),$(NCCL_SO)),1,0)

MPICXX := $(shell command -v mpicxx 2>/dev/null || command -v mpic++ 2>/dev/null)
ifneq ($(MPI_HOME),)
MPI_CFLAGS := -I$(MPI_HOME)/include
MPI_LIBS := -L$(MPI_HOME)/lib -Wl,-rpath,$(MPI_HOME)/lib -lmpi
else ifneq ($(MPICXX),)
MPI_CFLAGS := $(shell $(MPICXX) --showme:compile 2>/dev/null)
MPI_LIBS := $(shell $(MPICXX) --showme:link 2>/dev/null)
else
MPI_CFLAGS := $(shell pkg-config --cflags ompi 2>/dev/null)
MPI_LIBS := $(shell pkg-config --libs ompi 2>/dev/null)
endif
HAVE_MPI := $(if $(MPI_LIBS),1,0)
MPIRUN := $(shell command -v mpirun 2>/dev/null)

HAVE_HWLOC := $(if $(shell pkg-config --exists hwloc 2>/dev/null && echo yes),1,0)
HAVE_SQLITE := $(if $(shell pkg-config --exists sqlite3 2>/dev/null && echo yes),1,$(if $(wildcard /usr/include/sqlite3.h),1,0))
HAVE_TINYXML2 := $(if $(shell pkg-config --exists tinyxml2 2>/dev/null && echo yes),1,$(if $(wildcard /usr/include/tinyxml2.h),1,0))
HAVE_PNG := $(if $(shell pkg-config --exists libpng 2>/dev/null && echo yes),1,0)
HAVE_ZLIB := $(if $(shell pkg-config --exists zlib 2>/dev/null && echo yes),1,$(if $(wildcard /usr/include/zlib.h),1,0))
HAVE_YAMLCPP := $(if $(shell pkg-config --exists yaml-cpp 2>/dev/null && echo yes),1,$(if $(wildcard /usr/include/yaml-cpp/yaml.h),1,0))

# ---- flags ------------------------------------------------------------------------------------
CPPFLAGS := -Isrc -I. -Itests -DOMPI_SKIP_MPICXX=1 -DMPICH_SKIP_MPICXX=1 -DPB_HAVE_MPI=$(HAVE_MPI) -DPB_HAVE_NCCL=$(HAVE_NCCL) \
            -DPB_HAVE_HWLOC=$(HAVE_HWLOC) -DPB_HAVE_TINYXML2=$(HAVE_TINYXML2) -DPB_HAVE_YAMLCPP=$(HAVE_YAMLCPP) -DPB_HAVE_PNG=$(HAVE_PNG) -DPB_HAVE_CUBLAS=$(HAVE_CUBLAS) -DPB_HAVE_SQLITE=$(HAVE_SQLITE) -DPB_HAVE_ZLIB=$(HAVE_ZLIB) \
            -DTEST_DATA_DIR='"$(CURDIR)/tests/fixtures"' -DPIPEBENCH_BIN='"$(CURDIR)/$(BUILD)/bin/pipebench"'
# Warnings are errors where the project is tested (`make test`, hence CI: WERROR=1). A plain `make` shows
# them but goes on, so a compiler the project was not tested with (a newer g++ with a new warning) cannot
# stop a user's build. `make WERROR=1` makes them errors there too.
WERROR ?= 0
comma := ,
CXXFLAGS ?= -O2 -g
CXXFLAGS += -std=c++17 -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror) -pthread -MMD -MP
NVCCFLAGS ?= -O3
NVCCFLAGS += -std=c++17 $(NVCC_GENCODE) -Xcompiler -Wall,-Wextra$(if $(filter 1,$(WERROR)),$(comma)-Werror) -MMD -MP
LDLIBS := -lbenchmark -pthread -ldl
ifeq ($(HAVE_HWLOC),1)
LDLIBS += $(shell pkg-config --libs hwloc)
endif
ifeq ($(HAVE_TINYXML2),1)
LDLIBS += -ltinyxml2
endif
ifeq ($(HAVE_SQLITE),1)
LDLIBS += -lsqlite3
endif
ifeq ($(HAVE_YAMLCPP),1)
LDLIBS += -lyaml-cpp
endif
ifeq ($(HAVE_ZLIB),1)
LDLIBS += -lz
endif
ifeq ($(HAVE_MPI),1)
CXXFLAGS += $(MPI_CFLAGS)
LDLIBS += $(MPI_LIBS)
endif
ifeq ($(HAVE_NCCL),1)
NVCC_INC := -I$(CUDA_INC) $(if $(filter-out $(CUDA_INC),$(NCCL_INC)),-I$(NCCL_INC))
LDLIBS += -L$(NCCL_LIB) -L$(CUDA_LIB) -Wl,-rpath,$(NCCL_LIB) -Wl,-rpath,$(CUDA_LIB) -lnccl -lcudart
endif

# ---- sources ----------------------------------------------------------------------------------
SQLITE_ONLY := src/trace/sqlite_db.cc src/trace/nsys_schema.cc
LIB_SRCS := $(wildcard src/core/*.cc) src/launch/world.cc src/launch/gpu_assignment.cc src/launch/mpirun_relaunch.cc src/launch/mpirun_banner_filter.cc src/launch/launch_env.cc src/launch/tcp_rendezvous.cc src/launch/tcp_world.cc src/backend/host_data.cc src/backend/half_reduce.cc \
            src/backend/backend_factory.cc src/backend/replay_buffers.cc src/backend/replay_runtime_stubs.cc src/backend/gemm_steps.cc src/backend/pass_costs.cc \
            $(wildcard src/harness/*.cc) $(wildcard src/report/*.cc) \
            $(wildcard src/cli/*.cc) $(wildcard src/app/*.cc) $(wildcard src/service/*.cc) $(wildcard collectives/*.cc) \
            $(wildcard topology/*.cc) $(wildcard src/megatron/*.cc) $(wildcard src/schedule/*.cc) $(wildcard src/sim/*.cc) $(wildcard src/replay/*.cc) \
            $(wildcard src/io/*.cc) $(filter-out $(SQLITE_ONLY),$(wildcard src/trace/*.cc))
ifeq ($(HAVE_SQLITE),1)
LIB_SRCS += $(SQLITE_ONLY)
endif
ifeq ($(HAVE_MPI),1)
LIB_SRCS += src/backend/mpi_backend.cc src/backend/mpi_types.cc src/backend/mpi_replay.cc src/backend/mpi_wait.cc
endif
CUBLAS_CU := src/backend/gemm_timer.cu src/backend/cublas_library.cu src/backend/gemm_launch.cu src/backend/pass_costs.cu
CU_SRCS := $(if $(filter 1,$(HAVE_NCCL)),$(filter-out $(CUBLAS_CU),$(wildcard src/backend/*.cu)),)
# cuBLAS is opened when first used (src/backend/cublas_library.cuh), not linked: linked, it costs every
# process about 210 MB and 0.4 s at start-up. The run path lets dlopen find it where the build did.
ifeq ($(HAVE_CUBLAS),1)
CU_SRCS += $(CUBLAS_CU)
LDLIBS += -Wl,-rpath,$(patsubst %/,%,$(dir $(CUBLAS_SO)))
endif

# The bare reference loops of harness_overhead (make bench) only; pipebench does not link them.
BARE_LOOP_SRCS := $(if $(filter 1,$(HAVE_MPI)),src/tools/bare_loops/bare_mpi_loop.cc,) \
                  $(if $(filter 1,$(HAVE_NCCL)),src/tools/bare_loops/bare_nccl_loop.cu,)

UNIT_TEST_SRCS := $(filter-out %_mpi_test.cc %_gpu_test.cc,$(wildcard tests/*/*_test.cc))
MPI_TEST_SRCS := $(wildcard tests/*/*_mpi_test.cc)
GPU_TEST_SRCS := $(wildcard tests/*/*_gpu_test.cc)

obj = $(patsubst %,$(BUILD)/obj/%.o,$(1))
# The subcommand pages (src/app/SUB.md) built into the binary for `pipebench help SUB` (app/help_pages.h).
HELP_PAGES := $(sort $(filter-out src/app/README.md,$(wildcard src/app/*.md)))
HELP_PAGES_CC := $(BUILD)/gen/help_pages.cc
# Megatron-LM's arguments (megatron/megatron_argument_table.h), kept as data and made C++ at build time.
MEGATRON_ARGUMENTS_CC := $(BUILD)/gen/megatron_argument_table.cc
LIB_OBJS := $(call obj,$(LIB_SRCS) $(CU_SRCS) $(HELP_PAGES_CC) $(MEGATRON_ARGUMENTS_CC))

BIN := $(BUILD)/bin
PIPEBENCH := $(BIN)/pipebench
OVERHEAD := $(BIN)/harness_overhead
SIM_BENCH := $(BIN)/sim_bench
TRACE_BENCH := $(BIN)/trace_bench
REPLAY_BENCH := $(BIN)/replay_bench
REPORT_BENCH := $(BIN)/report_bench
TOPO_BENCH := $(BIN)/topology_bench
FLAG_TABLES := $(BIN)/flag_tables
UNIT_TESTS := $(BIN)/unit_tests
MPI_TESTS := $(if $(filter 1,$(HAVE_MPI)),$(BIN)/mpi_tests,)
GPU_TESTS := $(if $(filter 1,$(HAVE_NCCL)),$(BIN)/gpu_tests,)

# ---- public targets ---------------------------------------------------------------------------
all: deps
	@$(call quiet_make,-j$(JOBS) build-all)

test: deps
	@$(call quiet_make,-j$(JOBS) WERROR=1 build-all $(UNIT_TESTS) $(MPI_TESTS) $(GPU_TESTS))
	@$(MAKE) format-check
	@$(MAKE) function-size-check
	@$(MAKE) layer-check
	@$(MAKE) clang-check
	@$(call quiet_make,-j$(JOBS) fuzz-smoke)
	@$(MAKE) test-all

run: deps
	@$(call quiet_make,-j$(JOBS) build-all)
	$(PIPEBENCH) run

bench: deps
	@$(call quiet_make,-j$(JOBS) $(PIPEBENCH) $(OVERHEAD) $(SIM_BENCH) $(TRACE_BENCH) $(REPLAY_BENCH) $(REPORT_BENCH) $(TOPO_BENCH))
	@$(MAKE) bench-all

clean:
	rm -rf $(BUILD)

# Each subcommand page's flag table, generated from the command's CLI definition (src/app/flag_table.h)
# and checked in; FlagTable.EveryPageHoldsItsCurrentTable fails where a page's table is stale.
flag-tables: deps
	@$(call quiet_make,-j$(JOBS) $(FLAG_TABLES))
	@$(FLAG_TABLES) $(HELP_PAGES)

# Every C++/CUDA source and header of the tree, formatted by the repository's .clang-format.
FORMAT_FILES = $(shell git ls-files '*.cc' '*.h' '*.cu' '*.cuh' 2>/dev/null)
CLANG_FORMAT ?= clang-format

format: deps
	@$(CLANG_FORMAT) -i $(FORMAT_FILES)

format-check: deps
	@if ! command -v $(CLANG_FORMAT) >/dev/null; then echo "format-check: skipped ($(CLANG_FORMAT) not found; install clang-format)"; \
	else $(CLANG_FORMAT) --dry-run --Werror $(FORMAT_FILES) && echo "format-check: every file follows .clang-format"; fi

# No function over 100 lines (the architecture's rule): clang-tidy's readability-function-size on every C++
# source g++ builds (the .cu files are few and short; clang-tidy would need the CUDA toolchain for them).
# One stamp per source, so only changed files are looked at again.
CLANG_TIDY ?= clang-tidy
FUNCTION_LINES := 100
SIZE_CHECK_SRCS := $(LIB_SRCS) src/main.cc $(filter %.cc,$(BARE_LOOP_SRCS)) $(wildcard src/tools/*.cc)
SIZE_CHECK_STAMPS := $(patsubst %,$(BUILD)/tidy-check/%.ok,$(SIZE_CHECK_SRCS))
# The parse also reports clang's own warnings (clang-diagnostic-*, -Wall -Wextra) as errors: see clang-check.
SIZE_CHECK_CHECKS := readability-function-size,clang-diagnostic-*

function-size-check: deps
	@if ! command -v $(CLANG_TIDY) >/dev/null; then echo "function-size-check: skipped ($(CLANG_TIDY) not found; install clang-tidy)"; \
	else $(MAKE) -s -k -j$(JOBS) --no-print-directory $(SIZE_CHECK_STAMPS) && \
	  echo "function-size-check: no function over $(FUNCTION_LINES) lines in $(words $(SIZE_CHECK_SRCS)) sources"; fi

$(BUILD)/tidy-check/%.ok: %
	@mkdir -p $(dir $@)
	@$(CLANG_TIDY) --quiet -checks='-*,$(SIZE_CHECK_CHECKS)' --warnings-as-errors='$(SIZE_CHECK_CHECKS)' \
	  -config='{CheckOptions: [{key: readability-function-size.LineThreshold, value: $(FUNCTION_LINES)}]}' \
	  $< -- $(CPPFLAGS) -std=c++17 -Wall -Wextra $(MPI_CFLAGS) 2>&1 | grep -E '(warning|error):|note: [0-9]+ lines' | sed 's/ \[readability-function-size.*//'; \
	  test $${PIPESTATUS[0]} -eq 0 && touch $@

# Includes go down the layer order only (src/README.md states it): one line per #include "FOLDER/..." that
# points up the order, naming the file, the line and the two folders. The order is total, so no cycle.
layer-check:
	@bash src/tools/layer_check.sh

# clang++ reads every source as well, so that a warning g++ 12 does not give (as a newer g++ might) is
# caught here, before another node's compiler meets it. The library and tool sources: the clang-tidy run
# above, whose parse also reports clang's -Wall -Wextra warnings (clang-diagnostic-*: no second parse).
# The tests: clang++ -fsyntax-only, in parallel, one stamp per source, its headers tracked (-MMD).
CLANG_CHECK_SRCS := $(UNIT_TEST_SRCS) $(MPI_TEST_SRCS) $(if $(filter 1,$(HAVE_NCCL)),$(GPU_TEST_SRCS)) \
                    tests/world_main.cc $(wildcard tests/fuzz/*.cc)
CLANG_CHECK_STAMPS := $(patsubst %,$(BUILD)/clang-check/%.ok,$(CLANG_CHECK_SRCS))

clang-check: deps
	@if ! command -v $(CLANGXX) >/dev/null; then echo "clang-check: skipped ($(CLANGXX) not found; install clang)"; \
	else $(MAKE) -s -k -j$(JOBS) --no-print-directory $(CLANG_CHECK_STAMPS) && \
	  echo "clang-check: no clang warning in $(words $(SIZE_CHECK_SRCS) $(CLANG_CHECK_SRCS)) sources"; fi

$(BUILD)/clang-check/%.ok: %
	@mkdir -p $(dir $@)
	@$(CLANGXX) -fsyntax-only $(CPPFLAGS) -std=c++17 -Wall -Wextra -Werror $(MPI_CFLAGS) \
	  -MMD -MP -MT $@ -MF $(@:.ok=.d) $< && touch $@

# Debian packages by the file that proves them present.
DEPS := libbenchmark-dev:/usr/include/benchmark/benchmark.h \
        libgtest-dev:/usr/include/gtest/gtest.h \
        nlohmann-json3-dev:/usr/include/nlohmann/json.hpp \
        libcli11-dev:/usr/include/CLI/CLI.hpp \
        libopenmpi-dev:/usr/include/x86_64-linux-gnu/mpi/mpi.h \
        openmpi-bin:/usr/bin/mpirun \
        libhwloc-dev:/usr/include/hwloc.h \
        libtinyxml2-dev:/usr/include/tinyxml2.h \
        libsqlite3-dev:/usr/include/sqlite3.h \
        zlib1g-dev:/usr/include/zlib.h \
        clang-format:/usr/bin/clang-format \
        clang-tidy:/usr/bin/clang-tidy \
        libyaml-cpp-dev:/usr/include/yaml-cpp/yaml.h \
        libpng-dev:/usr/include/png.h \
        python3-prometheus-client:/usr/lib/python3/dist-packages/prometheus_client/parser.py \
        chromium:/usr/bin/chromium
deps:
	@missing=""; \
	for d in $(DEPS); do pkg=$${d%%:*}; file=$${d#*:}; \
	  if [ ! -e "$$file" ]; then \
	    if [ "$$pkg" = libopenmpi-dev ] && command -v mpicxx >/dev/null; then continue; fi; \
	    if [ "$$pkg" = openmpi-bin ] && command -v mpirun >/dev/null; then continue; fi; \
	    missing="$$missing $$pkg"; fi; \
	done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "make deps: installing$$missing"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  { apt-get install -y -q --no-install-recommends $$missing >/dev/null 2>&1 || \
	    { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q --no-install-recommends $$missing >/dev/null 2>&1; }; } || \
	  echo "make deps: could not install$$missing (no package registry?); building what is possible"; \
	else \
	  echo "make deps: missing Debian packages:$$missing (install them as root: apt-get install$$missing)"; \
	fi

config:
	@echo "CUDA/NCCL: $(if $(filter 1,$(HAVE_NCCL)),$(NCCL_FOUND),not found (NCCL backend left out; set CUDA_HOME/NCCL_HOME))"
	@echo "MPI:       $(if $(filter 1,$(HAVE_MPI)),$(MPI_LIBS),not found (MPI backend left out; install libopenmpi-dev))"
	@echo "hwloc:     $(if $(filter 1,$(HAVE_HWLOC)),found,not found (topology discovery left out; install libhwloc-dev))"
	@echo "cuBLAS:    $(if $(filter 1,$(HAVE_CUBLAS)),$(CUBLAS_SO),not found (predict --measure-compute left out))"
	@echo "SQLite:    $(if $(filter 1,$(HAVE_SQLITE)),found,not found (trace of Nsight Systems SQLite exports left out; install libsqlite3-dev))"
	@echo "zlib:      $(if $(filter 1,$(HAVE_ZLIB)),found,not found (trace of gzip-compressed JSON left out; install zlib1g-dev))"
	@echo "tinyxml2:  $(if $(filter 1,$(HAVE_TINYXML2)),found,not found (--nccl-xml left out; install libtinyxml2-dev))"
	@echo "chromium:  $(if $(wildcard /usr/bin/chromium),found,not found (the report's browser test is skipped; install chromium))"
	@echo "yaml-cpp:  $(if $(filter 1,$(HAVE_YAMLCPP)),found,not found (report --rules reads JSON only; install libyaml-cpp-dev))"

# nccl-tests' binary names, each a link to pipebench, which started by such a name is that binary
# (src/service/nccl_tests_mode.h): DCGM_NCCL_TESTS_BIN_PATH=build/bin runs pipebench. The names are the ops'
# nccl-tests aliases (OpAliases::nccl_tests in collectives/*.cc), as nccl_tests_binaries() lists them.
NCCL_TESTS_NAMES := $(sort $(shell grep -ho '"[a-z_]*_perf"' collectives/*.cc | tr -d '"'))
NCCL_TESTS_LINKS := $(addprefix $(BIN)/,$(NCCL_TESTS_NAMES))
PREFIX ?= /usr/local

install: all
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(PIPEBENCH) $(DESTDIR)$(PREFIX)/bin/pipebench
	for n in $(NCCL_TESTS_NAMES); do ln -sfn pipebench $(DESTDIR)$(PREFIX)/bin/$$n; done

# ---- real work (run by the public targets in a fresh make) ------------------------------------
build-all: $(PIPEBENCH) $(OVERHEAD) $(NCCL_TESTS_LINKS)
	@$(MAKE) config

$(NCCL_TESTS_LINKS): | $(BIN)
	$(Q)ln -sfn pipebench $@

$(PIPEBENCH): $(LIB_OBJS) $(call obj,src/main.cc) | $(BIN)
	@$(call progress,$@)
	$(Q)$(CXX) $(CXXFLAGS) -o $@ $^ $(LDLIBS)

$(OVERHEAD): $(LIB_OBJS) $(call obj,$(BARE_LOOP_SRCS) src/tools/harness_overhead.cc) | $(BIN)
	@$(call progress,$@)
	$(Q)$(CXX) $(CXXFLAGS) -o $@ $^ $(LDLIBS)

$(SIM_BENCH): $(LIB_OBJS) $(call obj,src/tools/sim_bench.cc) | $(BIN)
	@$(call progress,$@)
	$(Q)$(CXX) $(CXXFLAGS) -o $@ $^ $(LDLIBS)

$(REPLAY_BENCH): $(LIB_OBJS) $(call obj,src/tools/replay_bench.cc) | $(BIN)
	@$(call progress,$@)
	$(Q)$(CXX) $(CXXFLAGS) -o $@ $^ $(LDLIBS)

$(TRACE_BENCH): $(LIB_OBJS) $(call obj,src/tools/trace_bench.cc) | $(BIN)
	@$(call progress,$@)
	$(Q)$(CXX) $(CXXFLAGS) -o $@ $^ $(LDLIBS)

$(REPORT_BENCH): $(LIB_OBJS) $(call obj,src/tools/report_bench.cc) | $(BIN)
	@$(call progress,$@)
	$(Q)$(CXX) $(CXXFLAGS) -o $@ $^ $(LDLIBS)

$(FLAG_TABLES): $(LIB_OBJS) $(call obj,src/tools/flag_tables.cc) | $(BIN)
	@$(call progress,$@)
	$(Q)$(CXX) $(CXXFLAGS) -o $@ $^ $(LDLIBS)

$(TOPO_BENCH): $(LIB_OBJS) $(call obj,src/tools/topology_bench.cc) | $(BIN)
	@$(call progress,$@)
	$(Q)$(CXX) $(CXXFLAGS) -o $@ $^ $(LDLIBS)

$(UNIT_TESTS): $(LIB_OBJS) $(call obj,$(UNIT_TEST_SRCS)) | $(BIN)
	@$(call progress,$@)
	$(Q)$(CXX) $(CXXFLAGS) -o $@ $^ -lgtest_main -lgtest $(LDLIBS) $(if $(filter 1,$(HAVE_PNG)),-lpng)

$(BIN)/mpi_tests: $(LIB_OBJS) $(call obj,$(MPI_TEST_SRCS) tests/world_main.cc) | $(BIN)
	@$(call progress,$@)
	$(Q)$(CXX) $(CXXFLAGS) -o $@ $^ -lgtest $(LDLIBS)

$(BIN)/gpu_tests: $(LIB_OBJS) $(call obj,$(GPU_TEST_SRCS) tests/world_main.cc) | $(BIN)
	@$(call progress,$@)
	$(Q)$(CXX) $(CXXFLAGS) -o $@ $^ -lgtest $(LDLIBS)

test-all:
	@MPIRUN="$(MPIRUN)" UNIT_TESTS="$(UNIT_TESTS)" MPI_TESTS="$(MPI_TESTS)" GPU_TESTS="$(GPU_TESTS)" \
	  bash tests/run_tests.sh

bench-all:
	@MPIRUN="$(MPIRUN)" PIPEBENCH="$(PIPEBENCH)" OVERHEAD="$(OVERHEAD)" SIM_BENCH="$(SIM_BENCH)" TRACE_BENCH="$(TRACE_BENCH)" REPLAY_BENCH="$(REPLAY_BENCH)" REPORT_BENCH="$(REPORT_BENCH)" TOPO_BENCH="$(TOPO_BENCH)" HAVE_NCCL=$(HAVE_NCCL) bash tests/run_bench.sh

# ---- fuzzing ----------------------------------------------------------------------------------
# One target per parser: tests/fuzz/NAME_fuzz.cc with its corpus in tests/fuzz/corpus/NAME/. `make fuzz`
# runs each for FUZZ_SECONDS with libFuzzer and AddressSanitizer where clang++ can build -fsanitize=fuzzer,
# else with the seeded random-mutation driver (tests/fuzz/random_driver.cc) built by g++. `make test` runs
# the driver for FUZZ_SMOKE_SECONDS per target (fuzz-smoke). A crash or a hang fails the target.
FUZZ_TARGETS := $(patsubst tests/fuzz/%_fuzz.cc,%,$(wildcard tests/fuzz/*_fuzz.cc))
# Without tinyxml2 the pre-check that refuses the hwloc exports hwloc itself crashes on is built out,
# so fuzzing hwloc XML would only find hwloc's own crash again: that target is left out (and said so).
ifneq ($(HAVE_TINYXML2),1)
FUZZ_TARGETS := $(filter-out hwloc_xml,$(FUZZ_TARGETS))
FUZZ_NOTE := echo "fuzz: hwloc_xml left out (no tinyxml2, so no pre-check guarding hwloc: install libtinyxml2-dev)";
endif
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 3
FUZZ_SEED ?= 1
FUZZ_TIMEOUT ?= 10
CLANGXX ?= clang++
LIB_ARCHIVE := $(BUILD)/libpipebench.a
FUZZ_DRIVERS := $(foreach t,$(FUZZ_TARGETS),$(BIN)/fuzz_$(t))
# The sources the targets reach, built again by clang with ASan and coverage for libFuzzer.
FUZZ_CLANG_SRCS := $(wildcard src/core/*.cc) src/megatron/model_args.cc topology/nccl_xml.cc topology/topology.cc \
                   topology/link_bandwidth.cc topology/topology_checks.cc topology/hwloc_discovery.cc topology/placement.cc \
                   $(wildcard src/io/*.cc) $(wildcard src/megatron/*.cc) $(MEGATRON_ARGUMENTS_CC) src/cli/number_checks.cc topology/link_class.cc \
                   topology/link_band.cc src/report/rule.cc src/report/rules_yaml.cc src/report/metric.cc \
                   $(filter-out $(SQLITE_ONLY) src/trace/nsys_reader.cc src/trace/rank_timeline_nsys.cc src/trace/plan_check.cc,$(wildcard src/trace/*.cc))
# The ops are linked directly, not from an archive: their registrars fill the op registry, which the
# plan, rules, NVTX and nccl-tests readers ask for op names (collectives/registry.h).
FUZZ_OP_SRCS := $(wildcard collectives/*.cc)
FUZZ_CLANG := $(BUILD)/fuzz-clang
FUZZ_CLANG_FLAGS := -O1 -g -std=c++17 -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_LIBFUZZERS := $(foreach t,$(FUZZ_TARGETS),$(FUZZ_CLANG)/bin/fuzz_$(t))

fuzz: deps
	@if echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' | \
	    $(CLANGXX) -x c++ -fsanitize=fuzzer -o /dev/null - >/dev/null 2>&1; then \
	  $(call quiet_make,-j$(JOBS) fuzz-libfuzzer); \
	else echo "make fuzz: no clang++ with libFuzzer here; using the random-mutation driver"; $(call quiet_make,-j$(JOBS) fuzz-random); fi

fuzz-smoke: $(FUZZ_DRIVERS)
	@$(FUZZ_NOTE)FUZZ_SECONDS=$(FUZZ_SMOKE_SECONDS) FUZZ_SEED=$(FUZZ_SEED) FUZZ_TIMEOUT=$(FUZZ_TIMEOUT) BIN=$(BIN) bash tests/fuzz/run_fuzz.sh random $(FUZZ_TARGETS)

fuzz-random: $(FUZZ_DRIVERS)
	@FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_SEED=$(FUZZ_SEED) FUZZ_TIMEOUT=$(FUZZ_TIMEOUT) BIN=$(BIN) bash tests/fuzz/run_fuzz.sh random $(FUZZ_TARGETS)

fuzz-libfuzzer: $(FUZZ_LIBFUZZERS)
	@FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_SEED=$(FUZZ_SEED) FUZZ_TIMEOUT=$(FUZZ_TIMEOUT) BIN=$(FUZZ_CLANG)/bin WORK=$(FUZZ_CLANG)/corpus \
	  bash tests/fuzz/run_fuzz.sh libfuzzer $(FUZZ_TARGETS)

.SECONDARY: $(call obj,$(wildcard tests/fuzz/*.cc)) $(patsubst %,$(FUZZ_CLANG)/obj/%.o,$(wildcard tests/fuzz/*.cc))

$(LIB_ARCHIVE): $(LIB_OBJS)
	@rm -f $@
	@$(call progress,$@)
	$(Q)ar rcs $@ $^

$(BIN)/fuzz_%: $(call obj,tests/fuzz/%_fuzz.cc tests/fuzz/random_driver.cc $(FUZZ_OP_SRCS)) $(LIB_ARCHIVE) | $(BIN)
	@$(call progress,$@)
	$(Q)$(CXX) $(CXXFLAGS) -o $@ $^ $(LDLIBS)

$(FUZZ_CLANG)/libfuzzed.a: $(patsubst %,$(FUZZ_CLANG)/obj/%.o,$(FUZZ_CLANG_SRCS))
	@rm -f $@
	@$(call progress,$@)
	$(Q)ar rcs $@ $^

$(FUZZ_CLANG)/bin/fuzz_%: $(FUZZ_CLANG)/obj/tests/fuzz/%_fuzz.cc.o $(patsubst %,$(FUZZ_CLANG)/obj/%.o,$(FUZZ_OP_SRCS)) \
                         $(FUZZ_CLANG)/libfuzzed.a
	@mkdir -p $(dir $@)
	@$(call progress,$@)
	$(Q)$(CLANGXX) $(FUZZ_CLANG_FLAGS) -fsanitize=fuzzer -o $@ $^ $(filter-out -lbenchmark,$(LDLIBS))

$(FUZZ_CLANG)/obj/%.cc.o: %.cc
	@mkdir -p $(dir $@)
	@$(call progress,$<)
	$(Q)$(CLANGXX) $(CPPFLAGS) $(FUZZ_CLANG_FLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<

$(HELP_PAGES_CC): $(HELP_PAGES) src/app/embed_pages.sh
	@mkdir -p $(dir $@)
	@$(call progress,$@)
	$(Q)bash src/app/embed_pages.sh $@ $(HELP_PAGES)

$(MEGATRON_ARGUMENTS_CC): src/megatron/megatron_arguments.tsv src/megatron/embed_argument_table.sh
	@mkdir -p $(dir $@)
	@$(call progress,$@)
	$(Q)bash src/megatron/embed_argument_table.sh $@ src/megatron/megatron_arguments.tsv

$(BUILD)/obj/%.cc.o: %.cc
	@mkdir -p $(dir $@)
	@$(call progress,$<)
	$(Q)$(CXX) $(CPPFLAGS) $(CXXFLAGS) -c -o $@ $<

$(BUILD)/obj/%.cu.o: %.cu
	@mkdir -p $(dir $@)
	@$(call progress,$<)
	$(Q)$(NVCC) $(CPPFLAGS) $(NVCC_INC) $(NVCCFLAGS) -c -o $@ $<

$(BIN):
	@mkdir -p $@

# Header dependencies of g++'s objects and of clang's fuzzing objects: a changed header rebuilds both.
-include $(shell find $(BUILD)/obj $(FUZZ_CLANG)/obj $(BUILD)/clang-check -name '*.d' 2>/dev/null)
