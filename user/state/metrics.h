/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Prometheus / OpenMetrics exposition of a running instance, read from
 * the pinned maps when scraped: `cpu_state` and `control` (what the BPF
 * programs keep) and `loader_state` (what only the loader knows:
 * actuation, latency, profile). One module renders the text; the HTTP
 * server in `start` (--metrics-listen) and `govloader metrics` both use it.
 * User space only.
 */
#ifndef __BPFGOV_METRICS_H
#define __BPFGOV_METRICS_H

#ifdef __BPF__
#error "user/state/metrics.h is for user space only"
#endif

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifndef BPFGOV_VERSION
#define BPFGOV_VERSION		"0.1.0"
#endif

enum met_format {
	MET_PROMETHEUS = 0,	/* text/plain; version=0.0.4 */
	MET_OPENMETRICS,	/* application/openmetrics-text; version=1.0.0 */
};
const char *met_content_type(enum met_format f);

/*
 * Render the exposition from the maps pinned under @pin_root (without
 * `loader_state`: only what the BPF maps show). @up says whether an
 * instance is running. Returns 0 or -errno.
 */
int met_render(FILE *out, enum met_format fmt, const char *pin_root, bool up);
/* The same into a malloc'ed buffer (*buf, *len); 0 or -errno. */
int met_render_buf(char **buf, size_t *len, enum met_format fmt, const char *pin_root,
		   bool up);

/* --metrics-listen: serve met_render over HTTP (user/daemon/http.c). */
struct met_server;
int met_server_start(struct met_server **out, const char *listen, const char *pin_root);
void met_server_stop(struct met_server *s);

#endif /* __BPFGOV_METRICS_H */
