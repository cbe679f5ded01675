# SPDX-License-Identifier: GPL-2.0
#
# make install / make uninstall, honouring DESTDIR and prefix:
#   make install                          /usr/local/sbin/govloader and govlab, unit, man pages, docs
#   make install prefix=/usr DESTDIR=/tmp/pkg
# Installs govloader and govlab (0755, side by side: govlab validate runs
# the govloader beside it), bpfgov.service (ExecStart/ExecStopPost pointed
# at $(sbindir)), govloader(8), govlab(8), bpfgov.conf(5) and the docs. /etc/bpfgov.conf is never written: it is the
# operator's (docs/OPERATIONS.md has an example). Included by the Makefile.

prefix   ?= /usr/local
sbindir  ?= $(prefix)/sbin
datadir  ?= $(prefix)/share
docdir   ?= $(datadir)/doc/bpfgov
mandir   ?= $(datadir)/man
unitdir  ?= $(prefix)/lib/systemd/system
INSTALL  ?= install

INSTALL_DOCS := README.md docs/OPERATIONS.md

.PHONY: install uninstall

install: govloader govlab
	$(call msg,INSTALL,$(DESTDIR)$(sbindir)/govloader govlab)
	$(Q)$(INSTALL) -d -m 0755 $(DESTDIR)$(sbindir) $(DESTDIR)$(unitdir) $(DESTDIR)$(docdir)
	$(Q)$(INSTALL) -m 0755 govloader $(DESTDIR)$(sbindir)/govloader
	$(Q)$(INSTALL) -m 0755 govlab $(DESTDIR)$(sbindir)/govlab
	$(call msg,INSTALL,$(DESTDIR)$(unitdir)/bpfgov.service)
	$(Q)sed -e 's|/usr/local/sbin/|$(sbindir)/|g' \
		-e 's|/usr/local/share/doc/bpfgov/|$(docdir)/|g' \
		dist/bpfgov.service > $(DESTDIR)$(unitdir)/bpfgov.service.tmp
	$(Q)chmod 0644 $(DESTDIR)$(unitdir)/bpfgov.service.tmp
	$(Q)mv -f $(DESTDIR)$(unitdir)/bpfgov.service.tmp $(DESTDIR)$(unitdir)/bpfgov.service
	$(call msg,INSTALL,$(DESTDIR)$(mandir)/man8/govloader.8 govlab.8 man5/bpfgov.conf.5)
	$(Q)$(INSTALL) -d -m 0755 $(DESTDIR)$(mandir)/man8 $(DESTDIR)$(mandir)/man5
	$(Q)$(INSTALL) -m 0644 man/govloader.8 $(DESTDIR)$(mandir)/man8/govloader.8
	$(Q)$(INSTALL) -m 0644 man/govlab.8 $(DESTDIR)$(mandir)/man8/govlab.8
	$(Q)$(INSTALL) -m 0644 man/bpfgov.conf.5 $(DESTDIR)$(mandir)/man5/bpfgov.conf.5
	$(call msg,INSTALL,$(DESTDIR)$(docdir))
	$(Q)$(INSTALL) -m 0644 $(INSTALL_DOCS) $(DESTDIR)$(docdir)/
	@echo "installed; 'systemctl daemon-reload && systemctl enable --now bpfgov' starts the service"

uninstall:
	$(call msg,RM,$(DESTDIR)$(sbindir)/govloader govlab)
	$(Q)rm -f $(DESTDIR)$(sbindir)/govloader $(DESTDIR)$(sbindir)/govlab $(DESTDIR)$(unitdir)/bpfgov.service
	$(Q)rm -f $(DESTDIR)$(mandir)/man8/govloader.8 $(DESTDIR)$(mandir)/man8/govlab.8 $(DESTDIR)$(mandir)/man5/bpfgov.conf.5
	$(Q)rm -f $(addprefix $(DESTDIR)$(docdir)/,$(notdir $(INSTALL_DOCS)))
	$(Q)rmdir $(DESTDIR)$(docdir) 2>/dev/null || true
