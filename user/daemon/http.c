// SPDX-License-Identifier: GPL-2.0
/*
 * `start --metrics-listen`: /metrics over HTTP with libmicrohttpd.
 *
 * The server runs in libmicrohttpd's own thread (created with every signal
 * blocked, before the event loop turns real-time), so a scrape never runs
 * on the event loop: it reads the pinned maps and the shared page.
 * Bounds: HTTP_MAX_CONN connections (HTTP_MAX_PER_IP per address), a
 * request's header in HTTP_MEM_LIMIT bytes (larger: 431), HTTP_IDLE_S of
 * silence, and HTTP_DEADLINE_S for a whole request however slowly it is
 * sent (a watchdog shuts such sockets down; it sleeps while no connection
 * is open). GET only (405 otherwise); /metrics only (404 otherwise).
 * A scraper needs one connection: with 2 per address, slow clients hold
 * at most 2 slots each for at most HTTP_DEADLINE_S, and it takes
 * HTTP_MAX_CONN / HTTP_MAX_PER_IP addresses to fill the server.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <microhttpd.h>
#include "log.h"
#include "metrics.h"
#include "util.h"

#define HTTP_MAX_CONN		16
#define HTTP_MAX_PER_IP		2
#define HTTP_MEM_LIMIT		(32 * 1024)
#define HTTP_IDLE_S		3
#define HTTP_DEADLINE_S		5

struct conn_slot {
	int fd;			/* -1: free */
	time_t deadline;	/* CLOCK_MONOTONIC seconds */
};

struct met_server {
	struct MHD_Daemon *d;
	const char *pin_root;
	/* watchdog */
	pthread_t wd;
	bool wd_started;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stopping;
	int nr_open;
	struct conn_slot slot[HTTP_MAX_CONN + 4];
};

static time_t mono_s(void)
{
	return mono_ns() / 1000000000ull;
}

/* ------------------------------------------------------------ watchdog */

static void slot_set(struct met_server *s, int fd, bool open)
{
	size_t i;

	pthread_mutex_lock(&s->lock);
	for (i = 0; i < sizeof(s->slot) / sizeof(s->slot[0]); i++) {
		if (open && s->slot[i].fd < 0) {
			s->slot[i].fd = fd;
			s->slot[i].deadline = mono_s() + HTTP_DEADLINE_S;
			s->nr_open++;
			break;
		}
		if (!open && s->slot[i].fd == fd) {
			s->slot[i].fd = -1;
			s->nr_open--;
			break;
		}
	}
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

/* A request completed: the connection's next one gets a fresh deadline. */
static void slot_renew(struct met_server *s, int fd)
{
	size_t i;

	pthread_mutex_lock(&s->lock);
	for (i = 0; i < sizeof(s->slot) / sizeof(s->slot[0]); i++)
		if (s->slot[i].fd == fd)
			s->slot[i].deadline = mono_s() + HTTP_DEADLINE_S;
	pthread_mutex_unlock(&s->lock);
}

static void *watchdog(void *arg)
{
	struct met_server *s = arg;
	struct timespec ts;
	size_t i;

	pthread_mutex_lock(&s->lock);
	while (!s->stopping) {
		if (!s->nr_open) {
			pthread_cond_wait(&s->cond, &s->lock);
			continue;
		}
		for (i = 0; i < sizeof(s->slot) / sizeof(s->slot[0]); i++) {
			if (s->slot[i].fd >= 0 && mono_s() >= s->slot[i].deadline) {
				/* libmicrohttpd sees the socket fail and closes it. */
				shutdown(s->slot[i].fd, SHUT_RDWR);
				s->slot[i].deadline = mono_s() + HTTP_DEADLINE_S;
			}
		}
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&s->cond, &s->lock, &ts);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

static int conn_fd(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);

	return ci ? ci->connect_fd : -1;
}

static void on_conn(void *cls, struct MHD_Connection *c, void **sock_ctx,
		    enum MHD_ConnectionNotificationCode toe)
{
	int fd = conn_fd(c);

	if (fd >= 0)
		slot_set(cls, fd, toe == MHD_CONNECTION_NOTIFY_STARTED);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	int fd = conn_fd(c);

	if (fd >= 0)
		slot_renew(cls, fd);
}

/* ------------------------------------------------------------- handler */

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int code, const char *text,
			     const char *allow)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	if (allow)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
	ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

/*
 * Percent-decoding of the path (and arguments) in place. libmicrohttpd's
 * own would turn "/metrics%00.txt" into "/metrics" followed by a NUL, which
 * a string compare takes for "/metrics". A bad %XX or an encoded NUL is
 * left as sent: no served path has either, so it is a 404.
 */
static size_t on_unescape(void *cls, struct MHD_Connection *c, char *uri)
{
	size_t len = strlen(uri);
	char *dec = malloc(len + 1);

	if (dec && !pct_unescape(dec, len + 1, uri, len)) {
		len = strlen(dec);
		memcpy(uri, dec, len + 1);
	}
	free(dec);
	return len;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version,
				  const char *upload, size_t *upload_size, void **con_cls)
{
	struct met_server *s = cls;
	enum met_format fmt = MET_PROMETHEUS;
	struct MHD_Response *r;
	enum MHD_Result ret;
	const char *accept;
	size_t len = 0;
	char *buf = NULL;

	if (strcmp(method, MHD_HTTP_METHOD_GET))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET is served\n", "GET");
	if (*upload_size)
		return reply(c, MHD_HTTP_BAD_REQUEST, "a GET has no body\n", NULL);
	if (strcmp(url, "/metrics"))
		return reply(c, MHD_HTTP_NOT_FOUND, "bpfgov serves /metrics\n", NULL);
	accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	if (accept && strstr(accept, "application/openmetrics-text"))
		fmt = MET_OPENMETRICS;
	if (met_render_buf(&buf, &len, fmt, s->pin_root, true))
		return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "cannot read bpfgov's state\n", NULL);
	r = MHD_create_response_from_buffer(len, buf, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(buf);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, met_content_type(fmt));
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char line[256];

	if (log_level < LOG_DEBUG)
		return;
	vsnprintf(line, sizeof(line), fmt, ap);
	pr_debug("metrics: %s", line);
}

void met_server_stop(struct met_server *s)
{
	if (!s)
		return;
	if (s->d)
		MHD_stop_daemon(s->d);
	if (s->wd_started) {
		pthread_mutex_lock(&s->lock);
		s->stopping = true;
		pthread_cond_signal(&s->cond);
		pthread_mutex_unlock(&s->lock);
		pthread_join(s->wd, NULL);
	}
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

int met_server_start(struct met_server **out, const char *listen, const char *pin_root)
{
	char addr[INET6_ADDRSTRLEN] = "?";
	struct sockaddr_storage ss;
	struct met_server *s;
	in_port_t port;
	sigset_t all, old;
	unsigned int len, flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG;
	size_t i;
	int err;

	*out = NULL;
	if (listen_addr_parse(listen, &ss, &len)) {
		pr_warn("--metrics-listen: '%s' is not PORT, ADDR:PORT or [ADDR]:PORT\n", listen);
		return -EINVAL;
	}
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->pin_root = pin_root;
	for (i = 0; i < sizeof(s->slot) / sizeof(s->slot[0]); i++)
		s->slot[i].fd = -1;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);

	/* Threads inherit this mask: signals go to the event loop. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&s->wd, NULL, watchdog, s);
	if (!err) {
		s->wd_started = true;
		s->d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, s,
					MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
					MHD_OPTION_CONNECTION_LIMIT, (unsigned int)HTTP_MAX_CONN,
					MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)HTTP_MAX_PER_IP,
					MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)HTTP_IDLE_S,
					MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTP_MEM_LIMIT,
					MHD_OPTION_NOTIFY_CONNECTION, on_conn, s,
					MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
					MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
					MHD_OPTION_UNESCAPE_CALLBACK, on_unescape, NULL,
					MHD_OPTION_SIGPIPE_HANDLED_BY_APP, 1,
					MHD_OPTION_END);
		err = s->d ? 0 : (errno ? errno : EADDRINUSE);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		pr_warn("--metrics-listen %s: cannot serve: %s\n", listen, strerror(err));
		met_server_stop(s);
		return -err;
	}
	if (ss.ss_family == AF_INET6)
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, addr, sizeof(addr));
	else
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, addr, sizeof(addr));
	port = ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port :
					  ((struct sockaddr_in *)&ss)->sin_port;
	pr_info("metrics on http://%s%s%s:%u/metrics\n", ss.ss_family == AF_INET6 ? "[" : "",
		addr, ss.ss_family == AF_INET6 ? "]" : "", ntohs(port));
	*out = s;
	return 0;
}
