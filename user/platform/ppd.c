// SPDX-License-Identifier: GPL-2.0
/*
 * power-profiles-daemon follower (see ppd.h).
 *
 * PPD owns net.hadess.PowerProfiles on the system bus and announces a new
 * ActiveProfile with org.freedesktop.DBus.Properties.PropertiesChanged on
 * /net/hadess/PowerProfiles (newer releases keep this name beside
 * org.freedesktop.UPower.PowerProfiles). The match names PPD's bus name as
 * the sender, so the bus daemon delivers only signals from its owner: no
 * other client can steer bpfgov. When PPD (re)starts, NameOwnerChanged
 * triggers a fresh read.
 *
 * The bus is used by one thread only: ppd_open() in the caller's thread,
 * then the listener thread. The event loop only reads a string under a
 * mutex (ppd_take), at its own pace.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <systemd/sd-bus.h>
#include "log.h"
#include "ppd.h"
#include "util.h"

#define PPD_BUS_NAME	"net.hadess.PowerProfiles"
#define PPD_PATH	"/net/hadess/PowerProfiles"
#define PPD_IFACE	"net.hadess.PowerProfiles"
#define PPD_TIMEOUT_US	(2 * 1000000ull)

struct ppd {
	sd_bus *bus;
	pthread_t th;
	bool running;
	int stop_fd;			/* eventfd: wakes the thread to stop */
	pthread_mutex_t lock;
	char active[PPD_NAME_LEN];
	bool changed;
};

static const struct {
	const char *ppd, *bpfgov;
} profile_map[] = {
	{ "power-saver", "powersave" },
	{ "balanced", "balanced" },
	{ "performance", "performance" },
};

const char *ppd_to_profile(const char *ppd_name)
{
	size_t i;

	for (i = 0; ppd_name && i < sizeof(profile_map) / sizeof(profile_map[0]); i++)
		if (!strcmp(ppd_name, profile_map[i].ppd))
			return profile_map[i].bpfgov;
	return NULL;
}

static void set_active(struct ppd *p, const char *name)
{
	pthread_mutex_lock(&p->lock);
	if (strncmp(p->active, name, sizeof(p->active))) {
		snprintf(p->active, sizeof(p->active), "%s", name);
		p->changed = true;
	}
	pthread_mutex_unlock(&p->lock);
}

bool ppd_take(struct ppd *p, char *active, size_t len)
{
	bool ch;

	if (!p)
		return false;
	pthread_mutex_lock(&p->lock);
	ch = p->changed;
	p->changed = false;
	snprintf(active, len, "%s", p->active);
	pthread_mutex_unlock(&p->lock);
	return ch;
}

/* The reply of Get(PPD_IFACE, "ActiveProfile"): a variant holding "s". */
static int on_get_reply(sd_bus_message *m, void *ud, sd_bus_error *e)
{
	const char *v;

	if (sd_bus_message_is_method_error(m, NULL)) {
		pr_debug("power-profiles-daemon: %s\n", sd_bus_message_get_error(m)->message);
		return 0;
	}
	if (sd_bus_message_read(m, "v", "s", &v) >= 0)
		set_active(ud, v);
	return 0;
}

static int get_async(struct ppd *p)
{
	return sd_bus_call_method_async(p->bus, NULL, PPD_BUS_NAME, PPD_PATH,
					"org.freedesktop.DBus.Properties", "Get", on_get_reply, p,
					"ss", PPD_IFACE, "ActiveProfile");
}

/* PropertiesChanged(s interface, a{sv} changed, as invalidated). */
static int on_props(sd_bus_message *m, void *ud, sd_bus_error *e)
{
	const char *iface, *key, *v;
	int r;

	if (sd_bus_message_read(m, "s", &iface) < 0 || strcmp(iface, PPD_IFACE))
		return 0;
	if (sd_bus_message_enter_container(m, 'a', "{sv}") < 0)
		return 0;
	while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
		if (sd_bus_message_read(m, "s", &key) < 0)
			return 0;
		if (!strcmp(key, "ActiveProfile")) {
			if (sd_bus_message_read(m, "v", "s", &v) >= 0)
				set_active(ud, v);
			return 0;
		}
		if (sd_bus_message_skip(m, "v") < 0 || sd_bus_message_exit_container(m) < 0)
			return 0;
	}
	/* Invalidated without a value: read it. */
	if (sd_bus_message_exit_container(m) >= 0 &&
	    sd_bus_message_enter_container(m, 'a', "s") > 0)
		while (sd_bus_message_read(m, "s", &key) > 0)
			if (!strcmp(key, "ActiveProfile"))
				get_async(ud);
	return 0;
}

/* NameOwnerChanged(name, old, new) for PPD's name: read the new owner's. */
static int on_owner(sd_bus_message *m, void *ud, sd_bus_error *e)
{
	const char *name, *old, *new;

	if (sd_bus_message_read(m, "sss", &name, &old, &new) < 0)
		return 0;
	if (*new) {
		pr_info("power-profiles-daemon appeared on the system bus\n");
		get_async(ud);
	} else {
		pr_info("power-profiles-daemon left the system bus; the profile stays\n");
	}
	return 0;
}

int ppd_open(struct ppd **out, char *active, size_t len)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	struct ppd *p;
	const char *v;
	int r;

	*out = NULL;
	active[0] = '\0';
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->stop_fd = -1;
	pthread_mutex_init(&p->lock, NULL);
	r = sd_bus_open_system(&p->bus);
	if (r < 0) {
		pr_warn("--follow-ppd: cannot connect to the system bus: %s\n", strerror(-r));
		goto err;
	}
	sd_bus_set_method_call_timeout(p->bus, PPD_TIMEOUT_US);
	r = sd_bus_match_signal(p->bus, NULL, PPD_BUS_NAME, PPD_PATH,
				"org.freedesktop.DBus.Properties", "PropertiesChanged", on_props, p);
	if (r >= 0)
		r = sd_bus_add_match(p->bus, NULL,
				     "type='signal',sender='org.freedesktop.DBus',"
				     "path='/org/freedesktop/DBus',interface='org.freedesktop.DBus',"
				     "member='NameOwnerChanged',arg0='" PPD_BUS_NAME "'",
				     on_owner, p);
	if (r < 0) {
		pr_warn("--follow-ppd: cannot subscribe on the system bus: %s\n", strerror(-r));
		goto err;
	}
	r = sd_bus_get_property(p->bus, PPD_BUS_NAME, PPD_PATH, PPD_IFACE, "ActiveProfile",
				&e, &reply, "s");
	if (r >= 0 && sd_bus_message_read(reply, "s", &v) >= 0) {
		snprintf(active, len, "%s", v);
		snprintf(p->active, sizeof(p->active), "%s", v);
	} else {
		pr_info("power-profiles-daemon is not running (%s); following it once it starts\n",
			e.message ? e.message : strerror(-r));
	}
	sd_bus_message_unref(reply);
	sd_bus_error_free(&e);
	p->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (p->stop_fd < 0) {
		r = -errno;
		goto err;
	}
	*out = p;
	return 0;
err:
	ppd_close(p);
	return r;
}

static void *listener(void *arg)
{
	struct ppd *p = arg;
	struct pollfd pf[2];
	uint64_t usec;
	int r, timeout;

	for (;;) {
		do {
			r = sd_bus_process(p->bus, NULL);
		} while (r > 0);
		if (r < 0) {
			pr_warn("power-profiles-daemon: lost the system bus (%s); the profile stays\n",
				strerror(-r));
			return NULL;
		}
		pf[0].fd = sd_bus_get_fd(p->bus);
		pf[0].events = sd_bus_get_events(p->bus);
		pf[1].fd = p->stop_fd;
		pf[1].events = POLLIN;
		timeout = -1;
		if (sd_bus_get_timeout(p->bus, &usec) > 0 && usec != UINT64_MAX) {
			uint64_t now = mono_ns() / 1000;

			timeout = usec > now ? (int)((usec - now + 999) / 1000) : 0;
		}
		r = poll(pf, 2, timeout);
		if (r < 0 && errno != EINTR)
			return NULL;
		if (pf[1].revents)
			return NULL;
	}
}

int ppd_run(struct ppd *p)
{
	sigset_t all, old;
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&p->th, NULL, listener, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return -err;
	p->running = true;
	return 0;
}

void ppd_close(struct ppd *p)
{
	uint64_t one = 1;

	if (!p)
		return;
	if (p->running) {
		if (write(p->stop_fd, &one, sizeof(one)) < 0)
			pr_debug("cannot wake the power-profiles-daemon listener\n");
		pthread_join(p->th, NULL);
	}
	if (p->stop_fd >= 0)
		close(p->stop_fd);
	sd_bus_flush_close_unref(p->bus);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
