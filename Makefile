# gt: see README and INSTALL.
# Every lib/*.c and lib/nn/*.c (the network: nn, its CPU backend, the GPU
# probe) goes into libgt.a, lib/nn/cuda/*.cu too in a CUDA build; every
# cmd/gt-*.c becomes a command (with cmd/cli.c), every tests/unit/*.c a TAP
# test program; `make check` runs them all under prove.

PREFIX   ?= /usr/local
CC       ?= cc
# The default build runs on any x86-64 from 2009 on (x86-64-v2: SSE4.2,
# POPCNT); the vector kernels for AVX2+FMA (wino.c, katago.c) and for
# AVX-512 and AMX (bf16.c, int8.c) are compiled per function and chosen at
# run time by cpuid (lib/nn/simd.h, amx.h). OPT='-O2 -march=native' builds
# everything for this CPU alone.
OPT      ?= -O2 -march=x86-64-v2
# ARCH=arm64: a cross build for aarch64 Linux (Debian's aarch64-linux-gnu-gcc
# and the :arm64 libraries of multiarch, share/gt/install-deps), armv8-a with
# NEON kernels (simd.h), CPU only, objects and tests in build/arm64, commands
# in build/arm64/bin; `make check` builds it where the cross compiler is, and
# tests/cmd/arm64.t runs it under qemu-user. On an arm64 machine ARCH=arm64
# is the default, with its own cc.
ARM64_OPT = -O2 -march=armv8-a
ifeq ($(shell uname -m),aarch64)
ARCH     ?= arm64
ARM64_CC  = cc
else
ARM64_CC  = aarch64-linux-gnu-gcc
endif
# Without oneDNN (GT_CONV=onednn then runs gt's own convolutions,
# lib/nn/dnn.h): DNNL=0, the default of ARCH=arm64, where Debian 12's
# libdnnl-dev:arm64 does not install beside the amd64 one (both ship a
# different oneapi/dnnl/dnnl_config.h).
ifeq ($(ARCH),arm64)
CC        = $(ARM64_CC)
OPT       = $(ARM64_OPT)
CUDA      = 0
DNNL     ?= 0
# Debian 12's cross GCC 12.2 stops with an internal compiler error
# (vect_transform_reduction) on the fmax reductions of tests/unit/nn_cuda.c
# and selfplay_net.c: the unit tests without loop vectorization
TEST_CFLAGS = -fno-tree-loop-vectorize
endif
DNNL     ?= 1
CFLAGS   ?= $(OPT) -g
WFLAGS    = -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wno-unused-parameter
ifeq ($(ARCH),arm64)
CPPFLAGS += -Ilib -Ilib/nn -I/usr/include/aarch64-linux-gnu/openblas-pthread
else
CPPFLAGS += -Ilib -Ilib/nn -I/usr/include/openblas -I/usr/include/x86_64-linux-gnu/openblas-pthread
endif
LIB_H    := $(wildcard lib/*.h lib/nn/*.h)
TEST_H   := $(wildcard tests/unit/*.h)
ifeq ($(DNNL),0)
CPPFLAGS += -DGT_DNNL=0
else
LDLIBS   += -ldnnl
endif
LDLIBS   += -lgomp -lopenblas -ljansson -lcurl -lexpat -lcrypto -lz -lm -lpthread
ifeq ($(ARCH),arm64)
OBJDIR    = build/arm64
else ifeq ($(SANITIZE),1)
# GT_BOARD_CHECK: lib/board checks its invariants after every move (aborts)
CFLAGS   := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
CPPFLAGS += -DGT_BOARD_CHECK
LDFLAGS  += -fsanitize=address,undefined
OBJDIR    = build/san
else ifeq ($(SANITIZE),thread)
# ThreadSanitizer (the search threads, lib/mcts.c gt_mcts_start); OpenMP
# and OpenBLAS are not instrumented, so run it on what does not call them
CFLAGS   := -O1 -g -fno-omit-frame-pointer -fsanitize=thread
LDFLAGS  += -fsanitize=thread
OBJDIR    = build/tsan
else
OBJDIR    = build/opt
endif

# Optional CUDA backend (lib/nn/cuda/*.cu, see lib/nn/gpu.h): `make CUDA=1`,
# on by itself when nvcc and cuBLAS are found, off with `make CUDA=0`. Objects
# go to $(OBJDIR)-cuda; binaries link cuBLAS (rpath) and the static CUDA
# runtime and still run CPU-only where there is no GPU or driver.
NVCC      ?= $(firstword $(wildcard /usr/local/cuda/bin/nvcc) $(shell command -v nvcc 2>/dev/null))
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
CUDA_LIB  ?= $(CUDA_HOME)/lib64
CUDA      ?= $(if $(wildcard $(CUDA_LIB)/libcublas.so),1,0)
ifeq ($(CUDA),1)
CUDA_ARCH ?= -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=[sm_90,compute_90]
NVFLAGS   ?= -O3 -std=c++17 $(CUDA_ARCH) -Werror all-warnings \
             -Xcompiler -Wall,-Wextra,-Werror,-Wno-unused-parameter
OBJDIR    := $(OBJDIR)-cuda
CPPFLAGS  += -DGT_CUDA
# cuBLAS is dlopen()ed by the backend (lib/nn/cuda/nn_cuda.cu), not linked;
# the rpath lets it find libcublas.so next to the toolkit.
LDLIBS    += -L$(CUDA_LIB) -Wl,-rpath,$(CUDA_LIB) -lcudart_static -ldl -lrt -lstdc++
CUDA_OBJ  := $(patsubst lib/nn/cuda/%.cu,$(OBJDIR)/lib/nn/cuda/%.o,$(wildcard lib/nn/cuda/*.cu))
.DEFAULT_GOAL := all
$(OBJDIR)/libgt.a: $(CUDA_OBJ)
$(OBJDIR)/lib/nn/cuda/%.o: lib/nn/cuda/%.cu $(LIB_H)
	@mkdir -p $(@D)
	$(NVCC) $(filter-out -I/usr/include/%,$(CPPFLAGS)) $(NVFLAGS) -c -o $@ $<
# tests/gpu/*.c: GPU comparison and benchmark programs, for tests/gpu/run
.PHONY: gpu
gpu: all $(patsubst tests/gpu/%.c,$(OBJDIR)/gpu/%,$(wildcard tests/gpu/*.c))
$(OBJDIR)/gpu/%: tests/gpu/%.c $(wildcard tests/gpu/*.h) $(TEST_H) $(OBJDIR)/libgt.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Itests/unit -I$(CUDA_HOME)/include $(WFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(OBJDIR)/libgt.a $(LDLIBS) -lcublas
endif

LIB_SRC  := $(wildcard lib/*.c lib/nn/*.c)
LIB_OBJ  := $(LIB_SRC:lib/%.c=$(OBJDIR)/lib/%.o)
CMD_SRC  := $(wildcard cmd/gt-*.c)
CMDS     := $(CMD_SRC:cmd/%.c=bin/%)
TEST_SRC := $(wildcard tests/unit/*.c)
TESTS    := $(TEST_SRC:tests/unit/%.c=$(OBJDIR)/tests/%)
BENCH_SRC:= $(filter-out $(if $(filter 0,$(DNNL)),bench/onednn.c),$(wildcard bench/*.c))
BENCHES  := $(BENCH_SRC:bench/%.c=$(OBJDIR)/bench/%)
LIBGT     = $(OBJDIR)/libgt.a
MAN1     := $(wildcard man/man1/*.1)
MAN5     := $(wildcard man/man5/*.5)
MAN7     := $(wildcard man/man7/*.7)

ifeq ($(ARCH),arm64)
BINDIR    = build/arm64/bin
else ifeq ($(SANITIZE),1)
BINDIR    = build/san/bin
else ifeq ($(SANITIZE),thread)
BINDIR    = build/tsan/bin
else
BINDIR    = bin
endif
CMDS     := $(CMD_SRC:cmd/%.c=$(BINDIR)/%)
# gt-worker: a shell command (cmd/gt-worker.sh) running share/gt/worker,
# written with the folder of share/gt it runs: the source tree's here, and
# PREFIX/share/gt by make install
GT_WORKER = sed 's|@GT_SHARE@|$(1)|' cmd/gt-worker.sh > $(2) && chmod 755 $(2)

# Fuzz harnesses, one per parser (tests/fuzz/*.c, see tests/fuzz/fuzz.h):
# `make` builds each with tests/fuzz/driver.c into $(OBJDIR)/fuzz/NAME, a
# program that replays files, and make check replays tests/fuzz/corpus/NAME/
# through it (tests/cmd/fuzz.t); `make fuzz` builds them with clang's
# libFuzzer and ASan+UBSan (build/fuzz/, CUDA off) and runs each for
# FUZZ_TIME seconds from its corpus (new inputs in build/fuzz/corpus/NAME/).
FUZZ_SRC := $(filter-out tests/fuzz/driver.c,$(wildcard tests/fuzz/*.c))
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(OBJDIR)/fuzz/%)
FUZZ_TIME ?= 10
FUZZ_CFLAGS = -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined
ifeq ($(FUZZ),1)
FUZZ_MAIN = -fsanitize=fuzzer,address,undefined
else
FUZZ_MAIN = tests/fuzz/driver.c
endif

.PHONY: all check bench install clean lint deps fuzz fuzz-build
all: $(CMDS) $(BINDIR)/gt-worker $(BINDIR)/gt-katago $(TESTS) $(BENCHES) $(FUZZ_BIN)

$(BINDIR)/gt-worker: cmd/gt-worker.sh
	@mkdir -p $(@D)
	@echo "  GEN     $@"
	@$(call GT_WORKER,$(CURDIR)/share/gt,$@)

$(BINDIR)/gt-katago: cmd/gt-katago.sh
	@mkdir -p $(@D)
	@echo "  GEN     $@"
	@cp cmd/gt-katago.sh $@ && chmod 755 $@

$(OBJDIR)/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz.h tests/fuzz/driver.c $(LIBGT)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	@$(CC) $(CPPFLAGS) -Itests/fuzz $(WFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(FUZZ_MAIN) $(LIBGT) $(LDLIBS)

fuzz:
	@command -v clang >/dev/null || { echo "make fuzz: needs clang (share/gt/install-deps)"; exit 1; }
	@$(MAKE) --no-print-directory CC=clang CUDA=0 SANITIZE=0 FUZZ=1 OBJDIR=build/fuzz \
	  CFLAGS="$(FUZZ_CFLAGS)" LDFLAGS= fuzz-build
	@for n in $(FUZZ_SRC:tests/fuzz/%.c=%); do \
	  mkdir -p build/fuzz/corpus/$$n; echo "== fuzz $$n ($(FUZZ_TIME) s)"; \
	  build/fuzz/fuzz/$$n -max_total_time=$(FUZZ_TIME) -rss_limit_mb=2048 -print_final_stats=1 \
	    build/fuzz/corpus/$$n tests/fuzz/corpus/$$n > build/fuzz/$$n.log 2>&1; rc=$$?; \
	  grep -E '^(Done|stat::number_of_executed_units)' build/fuzz/$$n.log; \
	  [ $$rc = 0 ] || { tail -n 40 build/fuzz/$$n.log; exit 1; }; \
	done
fuzz-build: $(FUZZ_BIN)

$(OBJDIR)/lib/%.o: lib/%.c $(LIB_H)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	@$(CC) $(CPPFLAGS) $(WFLAGS) $(CFLAGS) -c -o $@ $<

$(LIBGT): $(LIB_OBJ)
	@rm -f $@
	@echo "  AR      $@"
	@ar rcs $@ $^

# cmd/cli.c (messages, option values, the file loop: cmd/cli.h) is compiled
# once and linked into every command.
CLI_OBJ   = $(OBJDIR)/cmd/cli.o
$(CLI_OBJ): cmd/cli.c cmd/cli.h
	@mkdir -p $(@D)
	@echo "  CC      $<"
	@$(CC) $(CPPFLAGS) $(WFLAGS) $(CFLAGS) -c -o $@ $<

$(BINDIR)/%: cmd/%.c $(wildcard cmd/*.h) $(CLI_OBJ) $(LIBGT)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	@$(CC) $(CPPFLAGS) $(WFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(CLI_OBJ) $(LIBGT) $(LDLIBS)

$(OBJDIR)/tests/%: tests/unit/%.c $(TEST_H) $(LIBGT)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	@$(CC) $(CPPFLAGS) -Itests/unit $(WFLAGS) $(CFLAGS) $(TEST_CFLAGS) $(LDFLAGS) -o $@ $< $(LIBGT) $(LDLIBS)

$(OBJDIR)/bench/%: bench/%.c $(wildcard bench/*.h) $(TEST_H) $(LIBGT)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	@$(CC) $(CPPFLAGS) $(WFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBGT) $(LDLIBS)

# Unit tests are C programs printing TAP; command tests are tests/cmd/*.t shell
# scripts printing TAP. prove runs both and ends with one "Result:" line.
deps:
	@sh share/gt/install-deps

# the arm64 build for tests/cmd/arm64.t, where the cross compiler is; the
# options of this make (SANITIZE, OPT, CC) are not its
ARM64_MAKE = $(MAKE) --no-print-directory ARCH=arm64 SANITIZE=0 CUDA=0 DNNL=0 OPT='$(ARM64_OPT)' \
             CFLAGS='$(ARM64_OPT) -g' CC=aarch64-linux-gnu-gcc OBJDIR=build/arm64 BINDIR=build/arm64/bin
check: deps
	@$(MAKE) --no-print-directory all
	@if command -v aarch64-linux-gnu-gcc >/dev/null; then $(ARM64_MAKE) all; fi
	GT_BIN=$(CURDIR)/$(BINDIR) GT_TESTBIN=$(CURDIR)/$(OBJDIR)/tests GT_SRC=$(CURDIR) \
	  prove -j2 --timer -e '' $(TESTS) $(sort $(wildcard tests/cmd/*.t))

# make demo: the whole loop on this machine in a temporary folder (see
# README and share/gt/demo); DEMO=ci is the short setting.
DEMO     ?= default
.PHONY: demo
demo: deps
	@$(MAKE) --no-print-directory $(CMDS) $(BINDIR)/gt-worker $(BINDIR)/gt-katago
	@GT_BIN=$(CURDIR)/$(BINDIR) sh share/gt/demo $(DEMO)

bench: all
	GT_BIN=$(CURDIR)/$(BINDIR) GT_SRC=$(CURDIR) sh bench/run $(OBJDIR)/bench

lint:
	mandoc -Tlint -Wwarning $(MAN1) $(MAN5) $(MAN7)

install: $(CMDS) $(BINDIR)/gt-worker
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(DESTDIR)$(PREFIX)/share/man/man5 $(DESTDIR)$(PREFIX)/share/man/man7 \
	  $(DESTDIR)$(PREFIX)/share/gt
	install -m 755 $(CMDS) $(DESTDIR)$(PREFIX)/bin
	$(call GT_WORKER,$(PREFIX)/share/gt,$(DESTDIR)$(PREFIX)/bin/gt-worker)
	install -m 755 cmd/gt-katago.sh $(DESTDIR)$(PREFIX)/bin/gt-katago
	$(if $(MAN1),install -m 644 $(MAN1) $(DESTDIR)$(PREFIX)/share/man/man1)
	$(if $(MAN5),install -m 644 $(MAN5) $(DESTDIR)$(PREFIX)/share/man/man5)
	$(if $(MAN7),install -m 644 $(MAN7) $(DESTDIR)$(PREFIX)/share/man/man7)
	cp -R share/gt/. $(DESTDIR)$(PREFIX)/share/gt/

# make deb: a Debian package of the commands, man pages and share/gt
# (pkg/mkdeb), built for any x86-64 whatever OPT, CFLAGS and CUDA say here:
# the default OPT, CUDA=0, objects and commands in build/deb/, the tree
# staged by make install (PREFIX=/usr) in build/deb/pkg/debian/gt/; the
# package gt_VERSION_ARCH.deb written to DEB_OUT.
DEB_OUT  ?= build/deb
DEB_OPT   = -O2 -march=x86-64-v2
.PHONY: deb
deb:
	@command -v dpkg-deb >/dev/null || { echo "make deb: needs dpkg-deb (Debian's dpkg)"; exit 1; }
	@rm -rf build/deb/pkg
	@$(MAKE) --no-print-directory CUDA=0 SANITIZE=0 OPT='$(DEB_OPT)' CFLAGS='$(DEB_OPT) -g' \
	  OBJDIR=build/deb BINDIR=build/deb/bin PREFIX=/usr DESTDIR=$(CURDIR)/build/deb/pkg/debian/gt install
	@sh pkg/mkdeb build/deb/pkg $(DEB_OUT)

clean:
	rm -rf build bin
