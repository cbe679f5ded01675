# SPDX-License-Identifier: GPL-2.0
#
# bpfgov: `make` builds ./govloader and ./govlab, `make run` installs missing build
# dependencies, builds and starts the governor, `make check` runs every test.
# Out-of-tree build in $(BUILD); `make V=1` shows the commands.

BUILD     ?= build
CLANG     ?= clang
# The sched_ext scheduler uses the scx project's headers (include/scx/),
# whose compat wrappers need a clang that emits BTF for every extern kfunc
# it calls (bookworm's clang-14 drops some; scripts/deps.sh installs
# clang-19), and BPF ISA v3 (32-bit atomics in the exit-info record).
SCX_CLANG ?= $(firstword $(shell command -v clang-19 clang-18 clang-17 clang-16 2>/dev/null) $(CLANG))
BPFTOOL   ?= bpftool
# make defines CC itself (cc), so `CC ?= gcc` would never apply: gcc
# unless the user chose a compiler on the command line or in the environment.
ifeq ($(origin CC),default)
CC        := gcc
endif
ARCH      := x86
VMLINUX_DIR ?= vmlinux/$(ARCH)
RUN_ARGS  ?=
# Where the loader and the lab binaries go (the soak target builds
# sanitized ones aside).
GOVLOADER ?= govloader
GOVLAB    ?= govlab

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

.DELETE_ON_ERROR:
.DEFAULT_GOAL := all

# CFLAGS/LDFLAGS are the user's (e.g. sanitizers); the project's own flags
# are added separately so a command-line CFLAGS does not drop them.
CFLAGS    ?= -O2 -g
# Warnings are errors with WERROR=1: `make check` sets it, CI=true too.
WERROR    ?= $(if $(filter true 1,$(CI)),1,0)
ALL_CFLAGS = $(CFLAGS) -Wall -Wextra -Wno-unused-parameter $(if $(filter 1,$(WERROR)),-Werror) \
	     -std=gnu11 -D_GNU_SOURCE \
	     -Iinclude $(USER_INC) -I$(BUILD)/bpf -MMD -MP $(PC_CFLAGS)
# Libraries found with pkg-config: libmicrohttpd (the /metrics server),
# libsystemd (sd-bus: following power-profiles-daemon).
PC_LIBS   := libmicrohttpd libsystemd
PC_CFLAGS := $(shell pkg-config --cflags $(PC_LIBS) 2>/dev/null)
PC_LDLIBS := $(shell pkg-config --libs $(PC_LIBS) 2>/dev/null || echo -lmicrohttpd -lsystemd)
LDLIBS    := -lbpf -lelf -lz -lm $(PC_LDLIBS) -lpthread
TEST_LDLIBS := $(LDLIBS) -lcmocka -lpthread

# BPF: CO-RE against the committed vmlinux.h (from a sched_ext kernel);
# -fms-extensions because that kernel's BTF has structs embedding
# anonymous structs that clang otherwise rejects.
BPF_CFLAGS := -target bpf -g -O2 -D__TARGET_ARCH_$(ARCH) -Wall $(if $(filter 1,$(WERROR)),-Werror) \
	      -fms-extensions -Wno-microsoft-anon-tag \
	      -Iinclude -I$(VMLINUX_DIR) -MMD -MP

BPF_SRCS   := $(wildcard bpf/*.bpf.c)
BPF_OBJS   := $(patsubst bpf/%.bpf.c,$(BUILD)/bpf/%.bpf.o,$(BPF_SRCS))
SKELS      := $(patsubst bpf/%.bpf.c,$(BUILD)/bpf/%.skel.h,$(BPF_SRCS))

# user/ is a tree of folders, one concern each (README.md, Layout); the
# objects mirror it under $(BUILD)/user/, and every folder is on the
# include path, so a header is included by its name alone.
USER_DIRS  := $(sort $(patsubst %/,%,$(dir $(wildcard user/*/*.[ch] user/*/*/*.[ch]))))
USER_INC   := $(addprefix -I,$(USER_DIRS))
USER_SRCS  := $(wildcard $(addsuffix /*.c,$(USER_DIRS)))
USER_OBJS  := $(patsubst user/%.c,$(BUILD)/user/%.o,$(USER_SRCS))
# Two binaries over one core: govloader (the daemon and its clients) links
# no lab object; govlab (user/lab/) takes from the core archive only what
# it uses. Unit tests link every object but the two mains.
MAIN_OBJS  := $(BUILD)/user/client/govloader.o $(BUILD)/user/lab/govlab.o
LAB_OBJS   := $(filter $(BUILD)/user/lab/%,$(filter-out $(MAIN_OBJS),$(USER_OBJS)))
CORE_OBJS  := $(filter-out $(BUILD)/user/lab/% $(MAIN_OBJS),$(USER_OBJS))
CORE_LIB   := $(BUILD)/user/libbpfgov.a
LIB_OBJS   := $(filter-out $(MAIN_OBJS),$(USER_OBJS))

TEST_SRCS  := $(wildcard tests/unit/test_*.c)
TEST_BINS  := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(TEST_SRCS))
TEST_OBJS  := $(patsubst tests/unit/%.c,$(BUILD)/tests/%.o,$(TEST_SRCS))

WORK_SRCS  := $(wildcard tests/workloads/*.c)
WORK_BINS  := $(patsubst tests/workloads/%.c,$(BUILD)/%,$(WORK_SRCS))

# The bench's reference programs (the cost of one program run here).
BENCH_BPF  := $(patsubst tests/bench/%.bpf.c,$(BUILD)/bench/%.bpf.o,$(wildcard tests/bench/*.bpf.c))

.PHONY: all deps run check check-unit check-integration check-fuzz bench soak clean help print-ldlibs
# Generated skeletons and test objects are not throw-away intermediates.
.SECONDARY: $(SKELS) $(TEST_OBJS)

all: $(GOVLOADER) $(GOVLAB) $(WORK_BINS) $(TEST_BINS) $(BENCH_BPF)

help:
	@echo "make            build ./govloader, ./govlab, workloads and tests (in $(BUILD)/)"
	@echo "make run        install missing deps, build, start the governor (sudo)"
	@echo "make check      install missing deps, build, run every test"
	@echo "make bench      side-by-side benchmarks, writes docs/BENCHMARKS.md"
	@echo "make soak       ASan/UBSan + valgrind + a long run, writes docs/SOAK.md"
	@echo "make V=1 ...    show the commands"
	@echo "make WERROR=1   warnings are errors (make check and CI=true set it)"

deps:
	$(Q)bash scripts/deps.sh

$(BUILD)/bpf $(BUILD)/tests:
	$(Q)mkdir -p $@

# C and BPF objects depend on the compilers and flags they were built with
# (a WERROR=1 or sanitizer build rebuilds them): the stamp changes with them.
FLAGS_STAMP := $(BUILD)/cflags.stamp
FLAGS_LINE   = $(CC) $(ALL_CFLAGS) | $(BPF_CC) $(BPF_CFLAGS)
$(FLAGS_STAMP): FORCE
	@mkdir -p $(BUILD)
	@echo '$(FLAGS_LINE)' | cmp -s - $@ || echo '$(FLAGS_LINE)' > $@
.PHONY: FORCE
FORCE:

$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c $(FLAGS_STAMP) | $(BUILD)/bpf
	$(call msg,BPF,$@)
	$(Q)$(BPF_CC) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/bench/%.bpf.o: tests/bench/%.bpf.c $(FLAGS_STAMP)
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(BUILD)/bench
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

BPF_CC := $(CLANG)
$(BUILD)/bpf/bpfgov_scx.bpf.o: private BPF_CC := $(SCX_CLANG)
$(BUILD)/bpf/bpfgov_scx.bpf.o: private BPF_CFLAGS += -mcpu=v3
# v3 (ALU32, JMP32; kernels 5.1+, below what tp_btf needs): no zero
# extensions of 32-bit values on the tracepoint programs' hot paths.
$(BUILD)/bpf/bpfgov_trace.bpf.o: private BPF_CFLAGS += -mcpu=v3

# `bpftool gen object` links and strips DWARF (the skeleton embeds the
# object); scripts/fix-skel.sh adapts what bpftool 7.5 emits to libbpf 1.4
# (struct_ops map links).
$(BUILD)/bpf/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen object $(BUILD)/bpf/$*.lnk.o $<
	$(Q)$(BPFTOOL) gen skeleton $(BUILD)/bpf/$*.lnk.o name $* > $@.tmp
	$(Q)sh scripts/fix-skel.sh < $@.tmp > $@
	$(Q)rm -f $@.tmp

# User objects include the skeletons: generate them first; -MMD records
# the real dependencies for the next build.
# The version `govloader --version` and `govlab --version` print, kept here alone: the release,
# and the commit where the tree is a git checkout (a tarball: the release).
RELEASE := 0.1.0
VERSION ?= $(RELEASE)$(shell v=$$(git -C $(CURDIR) describe --always --dirty 2>/dev/null) && echo "+git.$$v")
VERSION_STAMP := $(BUILD)/version.stamp
$(VERSION_STAMP): FORCE
	@mkdir -p $(BUILD)
	@echo '$(VERSION)' | cmp -s - $@ || echo '$(VERSION)' > $@
$(MAIN_OBJS): $(VERSION_STAMP)
$(MAIN_OBJS): private ALL_CFLAGS += -DGOV_VERSION='"$(VERSION)"'

$(BUILD)/user/%.o: user/%.c $(FLAGS_STAMP) | $(SKELS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(GOVLOADER): $(BUILD)/user/client/govloader.o $(CORE_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(CORE_LIB): $(CORE_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@
	$(Q)$(AR) rcs $@ $^

$(GOVLAB): $(BUILD)/user/lab/govlab.o $(LAB_OBJS) $(CORE_LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The test build: govloader with its test hooks (-DGOV_TEST_HOOKS: `start
# --test-scx-error-after`), for the guest tests that provoke a failure from
# inside. Never installed; the shipped govloader has no hook.
TEST_HOOK_SRCS := user/daemon/start_opts.c user/daemon/loop.c
TEST_HOOK_OBJS := $(patsubst user/%.c,$(BUILD)/test-hooks/%.o,$(TEST_HOOK_SRCS))
$(BUILD)/test-hooks/%.o: user/%.c $(FLAGS_STAMP) | $(SKELS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -DGOV_TEST_HOOKS -c $< -o $@

$(BUILD)/govloader-test: $(BUILD)/user/client/govloader.o \
		$(filter-out $(patsubst user/%.c,$(BUILD)/user/%.o,$(TEST_HOOK_SRCS)),$(CORE_OBJS)) $(TEST_HOOK_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%.o: tests/unit/%.c $(FLAGS_STAMP) | $(BUILD)/tests $(SKELS)
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(LIB_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(TEST_LDLIBS)

$(BUILD)/%: tests/workloads/%.c $(FLAGS_STAMP)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(BUILD)
	$(Q)$(CC) $(ALL_CFLAGS) -pthread -o $@ $< -lm

run: deps
	$(Q)$(MAKE) --no-print-directory all
	./govloader start $(RUN_ARGS)

check: deps
	$(Q)$(MAKE) --no-print-directory WERROR=1 all
	$(Q)bash tests/run-all.sh

check-unit: all
	$(Q)bash tests/run-all.sh unit

check-integration: all
	$(Q)bash tests/run-all.sh integration

check-fuzz: all
	$(Q)bash tests/fuzz/run.sh

# The loader's link line, for tests/fuzz/run.sh (the args harness links it).
print-ldlibs:
	@echo $(LDLIBS)

# Sanitizers, valgrind and a long switch-heavy run: not part of `make check`.
soak: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)bash tests/soak/run.sh

bench: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)bash tests/bench/run.sh

clean:
	$(Q)rm -rf $(BUILD) govloader govlab

-include tests/vm/vm.mk
-include $(wildcard mk/*.mk)
-include $(wildcard $(BUILD)/bpf/*.d $(USER_OBJS:.o=.d) $(BUILD)/test-hooks/*/*.d $(BUILD)/tests/*.d $(BUILD)/bench/*.d)
