# SPDX-License-Identifier: GPL-2.0
#
# sched_ext VM tests, included by the top-level Makefile (-include).
#
#   make check-vm        build, boot the trixie-backports kernel (sched_ext)
#                        under QEMU/TCG, run tests/vm/guest-tests.sh
#   make bench-vm        the scheduler comparison (default, bpfgov, scx_simple,
#                        scx_flatcg), one boot per vCPU count of VM_SMP
#   make check-vm-idle   the live stuck-poll and idle actuation tests in a
#                        guest with a cpuidle driver (acpi_idle POLL + C1:
#                        tests/vm/mkacpi-cst.sh)
#   make bench-vm-idle   `make bench`'s live idle judge in that guest
#                        (docs/BENCHMARKS.md, section 4c)
#   make vm-kernel       fetch/cache the VM kernel in $(BUILD)/vm
#   make vmlinux-h       regenerate vmlinux/x86/vmlinux.h from that kernel
#
# VM_TIMEOUT bounds one VM run (seconds); VM_SMP sets the vCPUs (check-vm:
# one count, default 2; bench-vm: a list, default 2,4,8); VM_GROUPS picks guest test groups
# (smoke scx error stress partial bench; default: scx error stress partial);
# BENCH_ROUNDS / BENCH_SECS size the bench, BENCH_GOVOPT adds options to
# its `govloader start`.

VM_DIR      := $(BUILD)/vm
VM_INITRD   := $(VM_DIR)/initrd.cpio
VM_TIMEOUT  ?= 900
VM_GROUPS   ?=
BENCH_ROUNDS ?= 3
BENCH_SECS  ?= 1
BENCH_GOVOPT ?=
# Subsets for quick comparisons (comma-separated; default: all). A partial
# run only prints its report: the docs are written by a full run.
BENCH_CONFIGS ?=
BENCH_WORKLOADS ?=
# Console logs of an earlier bench-vm run (another build; a glob such as
# build/vm/before/bench-vm-icount-smp*.log): the report adds a
# before/after table.
BENCH_VM_BEFORE ?=
# VM_ICOUNT=1: bench-vm counts instructions instead of timing (QEMU
# -icount, tests/vm/run.sh): the figures are path lengths, the same from
# boot to boot (to about 1 in 1000), so two builds compare across boots.
VM_ICOUNT ?=
VM_BINS     := $(VM_DIR)/scxbench $(VM_DIR)/scx-smoke $(VM_DIR)/bpfgov-veristat

.PHONY: check-kernels check-vm bench-vm vm-kernel vmlinux-h vm-initrd scx-simple scx-flatcg

# The kernel's own example schedulers, tools/sched_ext/scx_simple (global
# weighted vtime) and scx_flatcg (flattened cgroup hierarchy), built from
# the VM kernel's linux-source (bench-vm only: the package is ~160 MB).
# Built with $(SCX_CLANG), like bpfgov's own scheduler (see the Makefile).
SCX_SIMPLE  := $(VM_DIR)/scx_simple
SCX_FLATCG  := $(VM_DIR)/scx_flatcg

# scx_build NAME: $(VM_DIR)/NAME from tools/sched_ext/NAME{.bpf.c,.c}.
define scx_build
	$(Q)src=$$(bash scripts/fetch-vm-kernel.sh --source $(VM_DIR) | tail -n1)/tools/sched_ext && \
	o=$(VM_DIR)/$(1).build && mkdir -p $$o && \
	$(SCX_CLANG) -target bpf -mcpu=v3 -g -O2 -D__TARGET_ARCH_$(ARCH) \
		-fms-extensions -Wno-microsoft-anon-tag -Wno-compare-distinct-pointer-types \
		-I$(VMLINUX_DIR) -I$$src/include -I$$src/include/bpf-compat -I$$src \
		-c $$src/$(1).bpf.c -o $$o/$(1).bpf.o && \
	$(BPFTOOL) gen skeleton $$o/$(1).bpf.o name $(1) | \
		bash scripts/fix-skel.sh > $$o/$(1).bpf.skel.h && \
	$(CC) -O2 -g -Wall -I$$src/include -I$$src -I$$o -o $(VM_DIR)/$(1) $$src/$(1).c $(LDLIBS)
endef

scx-simple: | $(VM_DIR)
	$(call scx_build,scx_simple)

# Optional: bench-vm goes on without it when it does not build.
scx-flatcg: | $(VM_DIR)
	-$(call scx_build,scx_flatcg)

$(VM_DIR):
	$(Q)mkdir -p $@

# Static: the guest has no libc of its own besides what mkinitramfs copies.
$(VM_DIR)/scxbench: tests/vm/scxbench.c | $(VM_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -Wall -Wextra -static -pthread -o $@ $<

# The floor of any sched_ext scheduler (no callback at all), a reference
# of bench-vm; registered in the guest by bpftool.
SCX_NULL := $(VM_DIR)/scx_null.bpf.o
$(SCX_NULL): tests/vm/scx_null.bpf.c $(FLAGS_STAMP) | $(VM_DIR)
	$(call msg,BPF,$@)
	$(Q)$(SCX_CLANG) $(BPF_CFLAGS) -mcpu=v3 -c $< -o $@

# Verifier figures per program (tests/vm/kernels.sh reads them).
$(VM_DIR)/bpfgov-veristat: tests/vm/veristat.c | $(VM_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -Wall -Wextra -o $@ $< $(LDLIBS)

# A govloader-independent driver of user/daemon/scx.c (debugging the scheduler).
$(VM_DIR)/scx-smoke: tests/vm/scx-smoke.c $(BUILD)/user/daemon/scx.o $(BUILD)/user/platform/topo.o $(BUILD)/user/lib/util.o | $(VM_DIR)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(BUILD)/user/daemon/scx.o $(BUILD)/user/platform/topo.o $(BUILD)/user/lib/util.o $(LDLIBS)

vm-kernel: | $(VM_DIR)
	$(Q)bash scripts/fetch-vm-kernel.sh $(VM_DIR)

vmlinux-h:
	$(Q)bash scripts/gen-vmlinux.sh $(VM_DIR)

vm-initrd: govloader $(BUILD)/govloader-test $(BPF_OBJS) $(WORK_BINS) $(VM_BINS)
	$(Q)BUILD=$(BUILD) bash tests/vm/mkinitramfs.sh $(VM_INITRD)

check-vm: vm-initrd
	$(Q)BUILD=$(BUILD) bash tests/vm/run.sh --timeout $(VM_TIMEOUT) \
		--initrd $(VM_INITRD) $(if $(VM_GROUPS),-- $(VM_GROUPS))

# bench-vm boots its own, larger image: bpftool, scx_simple and scx_flatcg
# come along with their `ldd` libraries.  One boot per vCPU count of
# VM_SMP (default 2,4,8; tests/vm/run.sh gives 8 two sockets and NUMA
# nodes), each log $(VM_DIR)/bench-vm[-icount]-smpN.log; the report
# (tests/vm/bench-smp-report.sh) puts them side by side.  A full run (no
# BENCH_CONFIGS / BENCH_WORKLOADS, VM_ICOUNT=1, every count) writes the
# tables into docs/SCX.md.  BENCH_VM_BEFORE: logs of an earlier build (a
# before/after table).
BENCH_VM_INITRD := $(VM_DIR)/initrd-bench.cpio
BENCH_SMP        = $(or $(VM_SMP),2$(comma)4$(comma)8)
BENCH_VM_LOG     = $(VM_DIR)/bench-vm$(if $(VM_ICOUNT),-icount)-smp$(1).log
BENCH_VM_TOOLS   = $(SCX_SIMPLE) $(wildcard $(SCX_FLATCG)) $(foreach t,bpftool hackbench,$(firstword $(wildcard $(addsuffix /$(t),/usr/sbin /usr/bin /sbin /bin))))
comma := ,

bench-vm: govloader $(BPF_OBJS) $(WORK_BINS) $(VM_BINS) $(SCX_NULL) scx-simple scx-flatcg
	$(Q)echo "bench-vm: tools in the image: $(BENCH_VM_TOOLS); vCPUs: $(BENCH_SMP)"
	$(Q)BUILD=$(BUILD) EXTRA_BINS="$(BENCH_VM_TOOLS)" EXTRA_FILES="$(SCX_NULL):/bin/scx_null.bpf.o" bash tests/vm/mkinitramfs.sh $(BENCH_VM_INITRD)
	$(Q)for n in $(subst $(comma), ,$(BENCH_SMP)); do \
		BUILD=$(BUILD) VM_ICOUNT=$(VM_ICOUNT) VM_SMP=$$n bash tests/vm/run.sh --timeout $(VM_TIMEOUT) \
		--initrd $(BENCH_VM_INITRD) --log $(call BENCH_VM_LOG,$$n) \
		-- bench rounds=$(BENCH_ROUNDS) secs=$(BENCH_SECS) $(if $(VM_ICOUNT),icount=1) \
		$(foreach o,$(BENCH_GOVOPT),govopt=$(o)) \
		$(if $(BENCH_CONFIGS),configs=$(BENCH_CONFIGS)) $(if $(BENCH_WORKLOADS),workloads=$(BENCH_WORKLOADS)); \
	done
	$(Q)bash tests/vm/bench-smp-report.sh $(foreach n,$(subst $(comma), ,$(BENCH_SMP)),$(call BENCH_VM_LOG,$(n))) \
		$(if $(BENCH_VM_BEFORE),--before $(wildcard $(BENCH_VM_BEFORE))) \
		$(if $(BENCH_CONFIGS)$(BENCH_WORKLOADS),,$(if $(and $(VM_ICOUNT),$(filter 2$(comma)4$(comma)8,$(BENCH_SMP))),--write docs/SCX.md))

# Live idle decisions in the guest: `check-vm-idle` runs the integration
# suites of IDLE_VM_SUITES (guest-tests.sh, group idle) with their live
# parts required (the stuck-poll test, test_idle.sh's real sysfs part,
# test_idle_governor.sh's switch of the real governor),
# and, on a kernel with sched_ext, the scx group and scxidle (the states
# entered, as the kernel counts them, booked in sched_ext mode),
# `bench-vm-idle` `make bench`'s live idle judge (tests/bench/live.sh), in a boot whose
# guest has a cpuidle driver (VM_IDLE=1: acpi_idle, POLL + C1 by HLT,
# tests/vm/mkacpi-cst.sh).  The image carries the project's own scripts
# under /src and the tools they run.
IDLE_VM_INITRD := $(VM_DIR)/initrd-idle.cpio
IDLE_VM_SUITES  := test_stuck_poll.sh test_idle.sh test_idle_governor.sh
IDLE_VM_SCRIPTS := tests/lib.sh tests/host.sh $(addprefix tests/integration/,$(IDLE_VM_SUITES)) $(wildcard tests/bench/*.sh)
IDLE_VM_TOOLS    = $(foreach t,bash jq awk cyclictest rt-app date getconf bpftool,$(firstword $(wildcard $(addsuffix /$(t),/usr/bin /usr/sbin /bin /sbin))))
IDLE_VM_HOLD    := $(VM_DIR)/hold.bpf.o
IDLE_VM_FILES    = govloader:/src/govloader govlab:/src/govlab $(BUILD)/bpfgov-work:/src/build/bpfgov-work \
	$(IDLE_VM_HOLD):/src/hold.bpf.o \
	$(foreach f,$(IDLE_VM_SCRIPTS),$(f):/src/$(f)) $(foreach t,$(IDLE_VM_TOOLS),$(t):/usr/bin/$(notdir $(t)))
IDLE_VM_LOG     := $(VM_DIR)/check-vm-idle.log
LIVE_VM_LOG     := $(VM_DIR)/bench-vm-idle.log

.PHONY: check-vm-idle bench-vm-idle idle-initrd
idle-initrd: govloader govlab $(BPF_OBJS) $(WORK_BINS) $(VM_DIR)/scxbench $(IDLE_VM_HOLD)
	$(Q)BUILD=$(BUILD) EXTRA_FILES="$(IDLE_VM_FILES)" bash tests/vm/mkinitramfs.sh $(IDLE_VM_INITRD)

# the guest's tracepoint hold (tests/vm/hold.bpf.c)
$(IDLE_VM_HOLD): tests/vm/hold.bpf.c $(FLAGS_STAMP)
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(VM_DIR)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# IDLE_KERNEL: another kernel image for check-vm-idle (make check boots
# Debian 12's 6.1 too, which check-kernels fetched), its log beside it.
IDLE_KERNEL ?=
check-vm-idle: idle-initrd
	$(Q)BUILD=$(BUILD) VM_IDLE=1 bash tests/vm/run.sh --timeout $(VM_TIMEOUT) \
		$(if $(IDLE_KERNEL),--kernel $(IDLE_KERNEL)) --initrd $(IDLE_VM_INITRD) \
		--log $(if $(IDLE_KERNEL),$(dir $(IDLE_KERNEL))check-vm-idle.log,$(IDLE_VM_LOG)) -- idle scx scxidle

# bench-vm-idle runs multi-threaded TCG (one host thread per vCPU: a
# polling vCPU does not take the time of the other, as on a real machine;
# the guest holds bpfgov's tracepoints enabled so that attaching patches
# no code) and LIVE_ROUNDS rounds, each cell the median of its rounds.
# A run of the default 3 rounds writes docs/BENCHMARKS.md's section 4c;
# LIVE_GOVOPT adds options to every bpfgov cell's `govloader start` (a
# run with them writes no docs: the record is of the defaults).
LIVE_ROUNDS ?= 3
LIVE_GOVOPT ?=
# LIVE_VARIANT=NAME:OPT,OPT...: the balanced profile with OPTs as well, in
# the same boot and rounds, with its own verdicts (e.g.
# dwell100:--set,pick_dwell_ms=100).
LIVE_VARIANT ?=
# One boot runs every round: 3 rounds of 56 cells took about 17 min on a
# 2-CPU host, past the 900 s that bounds a test boot (VM_TIMEOUT).
LIVE_VM_TIMEOUT ?= 2700
LIVE_VM_ACCEL = $(or $(VM_ACCEL),tcg$(comma)thread=multi)
bench-vm-idle: idle-initrd
	$(Q)BUILD=$(BUILD) VM_IDLE=1 VM_ACCEL=$(LIVE_VM_ACCEL) \
		bash tests/vm/run.sh --timeout $(LIVE_VM_TIMEOUT) \
		--initrd $(IDLE_VM_INITRD) --log $(LIVE_VM_LOG) -- livebench liverounds=$(LIVE_ROUNDS) \
		$(foreach o,$(LIVE_GOVOPT),govopt=$(o)) $(if $(LIVE_VARIANT),livevariant=$(LIVE_VARIANT))
	$(Q)VM_ACCEL=$(LIVE_VM_ACCEL) bash tests/vm/bench-idle-report.sh \
		$(LIVE_VM_LOG) $(if $(filter-out 3,$(LIVE_ROUNDS))$(LIVE_GOVOPT),,--write docs/BENCHMARKS.md)

# The kernel matrix (tests/vm/kernels.sh): 6.1, 6.12, 7.3 and the host's
# verifier figures. KERNELS picks some (e.g. KERNELS=6.1); a full run
# (no KERNELS) writes the table into docs/KERNELS.md.
KERNELS ?=
check-kernels: vm-initrd
	$(Q)BUILD=$(BUILD) VM_TIMEOUT=$(VM_TIMEOUT) bash tests/vm/kernels.sh \
		$(if $(KERNELS),,--write docs/KERNELS.md) $(KERNELS)
