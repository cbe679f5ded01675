# SPDX-License-Identifier: GPL-2.0
#
# sched_ext VM tests, included by the top-level Makefile (-include).
#
#   make check-vm        build, boot the trixie-backports kernel (sched_ext)
#                        under QEMU/TCG, run tests/vm/guest-tests.sh
#   make bench-vm        only the default-vs-bpfgov throughput comparison
#   make vm-kernel       fetch/cache the VM kernel in $(BUILD)/vm
#   make vmlinux-h       regenerate vmlinux/x86/vmlinux.h from that kernel
#
# VM_TIMEOUT bounds one VM run (seconds); VM_GROUPS picks guest test groups
# (smoke scx error stress partial bench; default: scx error stress partial);
# BENCH_ROUNDS / BENCH_SECS size the bench, BENCH_GOVOPT adds options to
# its `govloader start`.

VM_DIR      := $(BUILD)/vm
VM_INITRD   := $(VM_DIR)/initrd.cpio
VM_TIMEOUT  ?= 900
VM_GROUPS   ?=
BENCH_ROUNDS ?= 3
BENCH_SECS  ?= 5
BENCH_GOVOPT ?=
VM_BINS     := $(VM_DIR)/scxbench $(VM_DIR)/scx-smoke

.PHONY: check-vm bench-vm vm-kernel vmlinux-h vm-initrd

$(VM_DIR):
	$(Q)mkdir -p $@

# Static: the guest has no libc of its own besides what mkinitramfs copies.
$(VM_DIR)/scxbench: tests/vm/scxbench.c | $(VM_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -Wall -Wextra -static -pthread -o $@ $<

# A govloader-independent driver of user/scx.c (debugging the scheduler).
$(VM_DIR)/scx-smoke: tests/vm/scx-smoke.c $(BUILD)/user/scx.o | $(VM_DIR)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(BUILD)/user/scx.o $(LDLIBS)

vm-kernel: | $(VM_DIR)
	$(Q)bash scripts/fetch-vm-kernel.sh $(VM_DIR)

vmlinux-h:
	$(Q)bash scripts/gen-vmlinux.sh $(VM_DIR)

vm-initrd: govloader $(BPF_OBJS) $(WORK_BINS) $(VM_BINS)
	$(Q)BUILD=$(BUILD) bash tests/vm/mkinitramfs.sh $(VM_INITRD)

check-vm: vm-initrd
	$(Q)BUILD=$(BUILD) bash tests/vm/run.sh --timeout $(VM_TIMEOUT) \
		--initrd $(VM_INITRD) $(if $(VM_GROUPS),-- $(VM_GROUPS))

bench-vm: vm-initrd
	$(Q)BUILD=$(BUILD) bash tests/vm/run.sh --timeout $(VM_TIMEOUT) \
		--initrd $(VM_INITRD) --log $(VM_DIR)/bench-vm.log \
		-- bench rounds=$(BENCH_ROUNDS) secs=$(BENCH_SECS) \
		$(foreach o,$(BENCH_GOVOPT),govopt=$(o))
