# SPDX-License-Identifier: GPL-2.0
# bench-all: every benchmark this machine can run, in one go, one after the
# other at one commit, each writing its sections of the docs; then the
# provenance tables (tests/bench/provenance.sh) say which sections are
# from this commit. On a 2-CPU machine the whole run takes a few hours:
#   make bench                      docs/BENCHMARKS.md sections 1-5, goals
#   make bench-vm-idle              docs/BENCHMARKS.md section 4c
#   make bench-vm VM_ICOUNT=1       docs/SCX.md, 2, 4 and 8 vCPUs (counted)
#   make bench-vm VM_ICOUNT=1 VM_SMP=2 BENCH_CONFIGS=... BENCH_WORKLOADS=...
#     + tests/vm/bench-report.sh    the 2-vCPU counted block of both docs
#   make bench-vm VM_SMP=2 BENCH_CONFIGS=... BENCH_WORKLOADS=...
#     + tests/vm/bench-report.sh    the timed 2-vCPU block of both docs
#   make check-kernels              docs/KERNELS.md
# The 2-vCPU blocks compare configurations and workloads of their own
# (trace mode, the loader stopped or without real-time priority, stand-in
# idle states, the scheduler alone; the 8 threads and hackbench), which
# the 2/4/8 run does not measure: read from that run's log, their rows
# say "not measured". Their run measures what the report reads
# (tests/vm/bench-report.sh --needs).
# A step that fails stops the run (its sections keep their earlier run,
# marked stale by the table).
BENCH_ALL_2CPU = VM_SMP=2 $(shell bash tests/vm/bench-report.sh --needs)
.PHONY: bench-all
bench-all:
	$(Q)$(MAKE) --no-print-directory bench
	$(Q)$(MAKE) --no-print-directory bench-vm-idle
	$(Q)$(MAKE) --no-print-directory bench-vm VM_ICOUNT=1
	$(Q)$(MAKE) --no-print-directory bench-vm VM_ICOUNT=1 $(BENCH_ALL_2CPU)
	$(Q)bash tests/vm/bench-report.sh $(BUILD)/vm/bench-vm-icount-smp2.log --write docs/BENCHMARKS.md docs/SCX.md
	$(Q)$(MAKE) --no-print-directory bench-vm $(BENCH_ALL_2CPU)
	$(Q)bash tests/vm/bench-report.sh $(BUILD)/vm/bench-vm-smp2.log --write docs/BENCHMARKS.md docs/SCX.md
	$(Q)$(MAKE) --no-print-directory check-kernels
	$(Q)bash tests/bench/provenance.sh --write
