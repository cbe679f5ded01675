// SPDX-License-Identifier: GPL-2.0
/*
 * Trace reader and writer. The format is specified in docs/trace-format.md;
 * this file is its reference implementation. The reader is strict: a
 * replay of a damaged trace would print plausible but wrong numbers, so
 * anything unexpected is an error naming the file, the line and the reason.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "trace.h"
#include "util.h"

#define TRACE_MAX_LINE	1024
#define TRACE_MAX_FIELDS 32	/* more on a line: the rest is ignored (v2) */

void trace_init(struct trace *t)
{
	memset(t, 0, sizeof(*t));
	t->version = TRACE_VERSION;
}

void trace_free(struct trace *t)
{
	free(t->recs);
	t->recs = NULL;
	t->nr = t->cap = 0;
}

int trace_add(struct trace *t, __u64 ts_ns, __u64 dur_ns, __u32 cpu, __u32 kind, __u32 state)
{
	struct trace_rec *r;

	if (t->nr == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 4096;

		r = realloc(t->recs, cap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		t->recs = r;
		t->cap = cap;
	}
	r = &t->recs[t->nr++];
	r->ts_ns = ts_ns;
	r->dur_ns = dur_ns;
	r->cpu = cpu;
	r->kind = kind;
	r->state = state;
	r->wake = TRACE_WAKE_UNKNOWN;
	r->next_timer_ns = TRACE_NO_TIMER;
	return 0;
}

int trace_add_idle(struct trace *t, __u64 ts_ns, __u64 dur_ns, __u32 cpu, __u32 state,
		   __u64 next_timer_ns, __u32 wake)
{
	int err = trace_add(t, ts_ns, dur_ns, cpu, BPFGOV_EV_IDLE_EXIT, state);

	if (!err) {
		t->recs[t->nr - 1].next_timer_ns = next_timer_ns;
		t->recs[t->nr - 1].wake = wake < TRACE_WAKE__MAX ? wake : TRACE_WAKE_UNKNOWN;
	}
	return err;
}

static const char *const wake_names[TRACE_WAKE__MAX] = {
	[TRACE_WAKE_UNKNOWN] = "-",
	[TRACE_WAKE_TIMER] = "timer",
	[TRACE_WAKE_IPI] = "ipi",
	[TRACE_WAKE_OTHER] = "other",
	[TRACE_WAKE_LIMIT] = "limit",
};

const char *trace_wake_name(__u32 wake)
{
	return wake < TRACE_WAKE__MAX ? wake_names[wake] : "-";
}

__u32 trace_wake_parse(const char *s)
{
	for (__u32 w = 0; w < TRACE_WAKE__MAX; w++)
		if (!strcmp(wake_names[w], s))
			return w;
	return TRACE_WAKE__MAX;
}

int trace_has_v2(const struct trace *t)
{
	for (size_t i = 0; i < t->nr; i++)
		if (t->recs[i].kind == BPFGOV_EV_IDLE_EXIT &&
		    (t->recs[i].wake != TRACE_WAKE_UNKNOWN ||
		     t->recs[i].next_timer_ns != TRACE_NO_TIMER))
			return 1;
	return 0;
}

/* Merge sort: stable (qsort is not), so records with the same end time
 * keep the writer's order, e.g. `idle` before the `gap` it ends. */
static void msort(struct trace_rec *a, struct trace_rec *tmp, size_t n)
{
	size_t m = n / 2, i = 0, j = m, k = 0;

	if (n < 2)
		return;
	msort(a, tmp, m);
	msort(a + m, tmp, n - m);
	if (a[m - 1].ts_ns <= a[m].ts_ns)
		return;
	while (i < m && j < n)
		tmp[k++] = a[j].ts_ns < a[i].ts_ns ? a[j++] : a[i++];
	while (i < m)
		tmp[k++] = a[i++];
	while (j < n)
		tmp[k++] = a[j++];
	memcpy(a, tmp, n * sizeof(*a));
}

void trace_sort(struct trace *t)
{
	struct trace_rec *tmp;

	if (t->nr < 2)
		return;
	tmp = malloc(t->nr * sizeof(*tmp));
	if (!tmp) {
		/* Fall back to insertion sort: slow but still stable. */
		for (size_t i = 1; i < t->nr; i++) {
			struct trace_rec r = t->recs[i];
			size_t j = i;

			while (j && t->recs[j - 1].ts_ns > r.ts_ns) {
				t->recs[j] = t->recs[j - 1];
				j--;
			}
			t->recs[j] = r;
		}
		return;
	}
	msort(t->recs, tmp, t->nr);
	free(tmp);
}

static const char *const kind_names[BPFGOV_EV__MAX] = {
	[BPFGOV_EV_BUSY] = "busy",
	[BPFGOV_EV_IDLE_GAP] = "gap",
	[BPFGOV_EV_IDLE_EXIT] = "idle",
	[BPFGOV_EV_WAKE_LAT] = "wake",
};

const char *trace_kind_name(__u32 kind)
{
	return kind < BPFGOV_EV__MAX && kind_names[kind] ? kind_names[kind] : NULL;
}

__u32 trace_kind_parse(const char *s)
{
	for (__u32 k = 0; k < BPFGOV_EV__MAX; k++)
		if (kind_names[k] && !strcmp(kind_names[k], s))
			return k;
	return 0;
}

static bool kind_has_state(__u32 kind)
{
	return kind == BPFGOV_EV_IDLE_EXIT || kind == BPFGOV_EV_WAKE_LAT;
}

static int tok_u32(const char *s, __u32 *out)
{
	__u64 v;

	if (parse_u64(s, &v) || v > 0xffffffffull)
		return -EINVAL;
	*out = (__u32)v;
	return 0;
}

struct parser {
	const char *name;
	size_t line;
	size_t last_rec_line;		/* line of the previous record */
	char *err;
	size_t errlen;
};

static int perr(struct parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int perr(struct parser *p, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (p->err && p->errlen)
		snprintf(p->err, p->errlen, "%s:%zu: %s", p->name, p->line, msg);
	return -EINVAL;
}

/* Split @s in place into at most @max whitespace-separated tokens. */
static int split(char *s, char **tok, int max)
{
	int n = 0;

	for (char *save = NULL, *w = strtok_r(s, " \t", &save); w;
	     w = strtok_r(NULL, " \t", &save)) {
		if (n == max)
			return max + 1;
		tok[n++] = w;
	}
	return n;
}

static int parse_state(struct parser *p, struct trace *t, char **tok, int n, __u32 *seen)
{
	struct trace_state *st;
	__u32 idx;
	__u64 cost = 0;

	if (n != 6 && n != 7)
		return perr(p, "state line needs 'state INDEX NAME EXIT_US RESIDENCY_US poll|- [COST_NS]'");
	if (tok_u32(tok[1], &idx) || idx >= BPFGOV_MAX_STATES)
		return perr(p, "state index '%s' is not 0..%d", tok[1], BPFGOV_MAX_STATES - 1);
	if (*seen & (1u << idx))
		return perr(p, "state %u described twice", idx);
	st = &t->states[idx];
	if (strlen(tok[2]) >= TRACE_NAME_LEN)
		return perr(p, "state name '%s' longer than %d characters", tok[2], TRACE_NAME_LEN - 1);
	snprintf(st->name, sizeof(st->name), "%s", tok[2]);
	if (tok_u32(tok[3], &st->exit_latency_us))
		return perr(p, "state %u: exit latency '%s' is not a number of us", idx, tok[3]);
	if (tok_u32(tok[4], &st->residency_us))
		return perr(p, "state %u: residency '%s' is not a number of us", idx, tok[4]);
	if (!strcmp(tok[5], "poll"))
		st->is_poll = 1;
	else if (!strcmp(tok[5], "-"))
		st->is_poll = 0;
	else
		return perr(p, "state %u: flags '%s' must be 'poll' or '-'", idx, tok[5]);
	if (n == 7 && parse_u64(tok[6], &cost))
		return perr(p, "state %u: cost '%s' is not a number of ns", idx, tok[6]);
	st->cost_ns = cost;
	*seen |= 1u << idx;
	return 0;
}

static int check_header(struct parser *p, struct trace *t, __u32 seen)
{
	__u32 n = 0;

	if (!t->nr_cpus)
		return perr(p, "header has no 'nr_cpus' line before 'records'");
	while (n < BPFGOV_MAX_STATES && (seen & (1u << n)))
		n++;
	if (!seen)
		return perr(p, "header describes no idle state (need 'state 0 ...')");
	if (seen >> n)
		return perr(p, "idle states must be numbered 0..N-1 without holes (state %u missing)", n);
	t->nr_states = n;
	return 0;
}

/*
 * Version 1: exactly TS CPU KIND DUR [STATE]. Version 2 adds, to `idle`
 * records only, NEXT_TIMER_NS|- and WAKE (timer, ipi, other, -); a version
 * 2 reader skips fields after those, and records of kinds it does not know
 * (they still count for the 'end' line), so that later versions may append
 * fields and add kinds.
 */
static int parse_record(struct parser *p, struct trace *t, char **tok, int n, __u64 *last_ts,
			size_t *skipped)
{
	__u64 ts, dur, next_timer = TRACE_NO_TIMER;
	__u32 cpu, kind, state = TRACE_NO_STATE, wake = TRACE_WAKE_UNKNOWN;
	int v2 = t->version >= 2, fixed;

	if (n < 4 || (!v2 && n > 5))
		return perr(p, "record needs 'TS_NS CPU KIND DUR_NS [STATE]', got %d fields", n);
	if (parse_u64(tok[0], &ts))
		return perr(p, "timestamp '%s' is not an unsigned integer", tok[0]);
	if (tok_u32(tok[1], &cpu) || cpu >= t->nr_cpus)
		return perr(p, "cpu '%s' is not below nr_cpus %u", tok[1], t->nr_cpus);
	kind = trace_kind_parse(tok[2]);
	if (!kind && !v2)
		return perr(p, "unknown record kind '%s' (busy, gap, idle, wake)", tok[2]);
	if (parse_u64(tok[3], &dur))
		return perr(p, "duration '%s' is not an unsigned integer", tok[3]);
	if (dur > ts)
		return perr(p, "duration %llu ns is longer than the timestamp %llu ns",
			    (unsigned long long)dur, (unsigned long long)ts);
	if (ts < *last_ts)
		return perr(p, "timestamp %llu goes backwards (line %zu has %llu)",
			    (unsigned long long)ts, p->last_rec_line, (unsigned long long)*last_ts);
	*last_ts = ts;
	p->last_rec_line = p->line;
	if (!kind) {
		(*skipped)++;	/* a later version's kind */
		return 0;
	}
	fixed = kind_has_state(kind) ? 5 : 4;
	if (kind_has_state(kind)) {
		if (n < 5)
			return perr(p, "'%s' record needs a STATE field", tok[2]);
		if (tok_u32(tok[4], &state) || state >= t->nr_states)
			return perr(p, "state '%s' is not below the %u states of the header",
				    tok[4], t->nr_states);
	} else if (n != 4 && !v2) {
		return perr(p, "'%s' record takes no STATE field", tok[2]);
	}
	if (v2 && kind == BPFGOV_EV_IDLE_EXIT) {
		if (n > fixed && strcmp(tok[fixed], "-") && parse_u64(tok[fixed], &next_timer))
			return perr(p, "next timer '%s' is not a number of ns or '-'", tok[fixed]);
		if (next_timer == TRACE_NO_TIMER && n > fixed && strcmp(tok[fixed], "-"))
			return perr(p, "next timer '%s' is out of range", tok[fixed]);
		if (n > fixed + 1) {
			wake = trace_wake_parse(tok[fixed + 1]);
			if (wake == TRACE_WAKE__MAX)
				return perr(p, "wake reason '%s' is not timer, ipi, other or -",
					    tok[fixed + 1]);
		}
	}
	if (trace_add(t, ts, dur, cpu, kind, state))
		return -ENOMEM;
	t->recs[t->nr - 1].next_timer_ns = next_timer;
	t->recs[t->nr - 1].wake = wake;
	return 0;
}

enum { P_MAGIC, P_HEADER, P_RECORDS, P_END };

int trace_parse(FILE *f, const char *name, struct trace *t, char *err, size_t errlen)
{
	struct parser p = { .name = name, .line = 0, .err = err, .errlen = errlen };
	char *buf = NULL, *tok[TRACE_MAX_FIELDS];
	size_t cap = 0, skipped = 0;
	ssize_t len;
	__u64 last_ts = 0, count;
	__u32 seen = 0;
	int phase = P_MAGIC, n, ret = 0;

	trace_init(t);
	if (err && errlen)
		err[0] = '\0';
	while ((len = getline(&buf, &cap, f)) >= 0) {
		bool nl = len > 0 && buf[len - 1] == '\n';

		p.line++;
		if ((size_t)len != strlen(buf)) {
			ret = perr(&p, "NUL byte: not a text trace (corrupt or binary data)");
			goto out;
		}
		if (len > TRACE_MAX_LINE) {
			ret = perr(&p, "line longer than %d bytes", TRACE_MAX_LINE);
			goto out;
		}
		if (nl)
			buf[--len] = '\0';
		if (len && buf[len - 1] == '\r')
			buf[--len] = '\0';
		if (phase != P_MAGIC && (buf[0] == '#' || !buf[0]))
			continue;
		if (!nl && phase != P_END) {
			/* A writer always ends lines; a cut file does not. */
			bool is_end = !strncmp(buf, "end ", 4);

			if (!is_end || phase != P_RECORDS) {
				ret = perr(&p, "truncated: last line has no newline");
				goto out;
			}
		}
		if (phase == P_MAGIC) {
			n = split(buf, tok, 8);
			if (n != 2 || strcmp(tok[0], TRACE_MAGIC)) {
				ret = perr(&p, "not a bpfgov trace (first line must be '%s %d')",
					   TRACE_MAGIC, TRACE_VERSION);
				goto out;
			}
			if (tok_u32(tok[1], &t->version) || t->version < TRACE_VERSION_MIN ||
			    t->version > TRACE_VERSION) {
				ret = perr(&p, "unsupported trace version '%s' (this reader knows %d..%d)",
					   tok[1], TRACE_VERSION_MIN, TRACE_VERSION);
				goto out;
			}
			phase = P_HEADER;
			continue;
		}
		if (phase == P_END) {
			ret = perr(&p, "data after the 'end' line");
			goto out;
		}
		if (phase == P_HEADER) {
			if (!strncmp(buf, "source ", 7) || !strcmp(buf, "source")) {
				snprintf(t->source, sizeof(t->source), "%s", buf[6] ? buf + 7 : "");
				continue;
			}
			n = split(buf, tok, 8);
			if (!n)
				continue;	/* blanks only: a blank line */
			if (!strcmp(tok[0], "nr_cpus")) {
				if (n != 2 || tok_u32(tok[1], &t->nr_cpus) || !t->nr_cpus ||
				    t->nr_cpus > BPFGOV_MAX_CPUS) {
					ret = perr(&p, "nr_cpus must be 1..%d", BPFGOV_MAX_CPUS);
					goto out;
				}
			} else if (!strcmp(tok[0], "state")) {
				ret = parse_state(&p, t, tok, n, &seen);
				if (ret)
					goto out;
			} else if (!strcmp(tok[0], "records") && n == 1) {
				ret = check_header(&p, t, seen);
				if (ret)
					goto out;
				phase = P_RECORDS;
			} else if (strncmp(tok[0], "x-", 2)) {
				/* x-* keys are free for other writers; anything
				 * else is a typo or a newer format. */
				ret = perr(&p, "unknown header line '%s'", tok[0]);
				goto out;
			}
			continue;
		}
		n = split(buf, tok, TRACE_MAX_FIELDS);
		if (!n)
			continue;	/* blanks only: a blank line */
		if (!strcmp(tok[0], "end")) {
			if (n != 2 || parse_u64(tok[1], &count)) {
				ret = perr(&p, "malformed 'end' line (need 'end COUNT')");
				goto out;
			}
			if (count != t->nr + skipped) {
				ret = perr(&p, "'end' says %llu records but %zu were read (records lost or added)",
					   (unsigned long long)count, t->nr + skipped);
				goto out;
			}
			phase = P_END;
			continue;
		}
		if (n > TRACE_MAX_FIELDS)
			n = t->version >= 2 ? TRACE_MAX_FIELDS : n;
		ret = parse_record(&p, t, tok, n, &last_ts, &skipped);
		if (ret == -ENOMEM) {
			perr(&p, "out of memory after %zu records", t->nr);
			goto out;
		}
		if (ret)
			goto out;
	}
	if (ferror(f)) {
		ret = -EIO;
		perr(&p, "read error");
		goto out;
	}
	if (phase == P_MAGIC)
		ret = perr(&p, "empty file (no '%s' header)", TRACE_MAGIC);
	else if (phase == P_HEADER)
		ret = perr(&p, "truncated: header never reaches the 'records' line");
	else if (phase == P_RECORDS)
		ret = perr(&p, "truncated: no 'end' line after %zu records", t->nr);
out:
	free(buf);
	if (ret)
		trace_free(t);
	return ret;
}

int trace_load(const char *path, struct trace *t, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	int ret;

	if (!f) {
		ret = -errno;
		trace_init(t);
		if (err && errlen)
			snprintf(err, errlen, "%s: cannot open: %s", path, strerror(-ret));
		return ret;
	}
	ret = trace_parse(f, path, t, err, errlen);
	fclose(f);
	return ret;
}

int trace_validate(const struct trace *t, char *err, size_t errlen)
{
	__u64 last = 0;

	if (!t->nr_cpus || t->nr_cpus > BPFGOV_MAX_CPUS || !t->nr_states ||
	    t->nr_states > BPFGOV_MAX_STATES) {
		snprintf(err, errlen, "header: nr_cpus %u / nr_states %u out of range",
			 t->nr_cpus, t->nr_states);
		return -EINVAL;
	}
	for (size_t i = 0; i < t->nr; i++) {
		const struct trace_rec *r = &t->recs[i];

		if (r->cpu >= t->nr_cpus || !trace_kind_name(r->kind) || r->dur_ns > r->ts_ns ||
		    r->ts_ns < last ||
		    (kind_has_state(r->kind) && r->state >= t->nr_states)) {
			snprintf(err, errlen, "record %zu (ts %llu cpu %u) is invalid or out of order",
				 i, (unsigned long long)r->ts_ns, r->cpu);
			return -EINVAL;
		}
		last = r->ts_ns;
	}
	return 0;
}

int trace_write(FILE *f, const struct trace *t)
{
	/* The lowest version that holds everything: a trace without version
	 * 2 fields stays readable by version 1 readers. */
	int v2 = trace_has_v2(t);

	fprintf(f, "%s %d\n", TRACE_MAGIC, v2 ? 2 : 1);
	if (t->source[0])
		fprintf(f, "source %s\n", t->source);
	fprintf(f, "nr_cpus %u\n", t->nr_cpus);
	for (__u32 k = 0; k < t->nr_states; k++) {
		const struct trace_state *s = &t->states[k];
		char name[TRACE_NAME_LEN];

		/* Names are single tokens in the file. */
		snprintf(name, sizeof(name), "%s", s->name[0] ? s->name : "state");
		for (char *c = name; *c; c++)
			if (*c == ' ' || *c == '\t')
				*c = '_';
		fprintf(f, "state %u %s %u %u %s", k, name, s->exit_latency_us, s->residency_us,
			s->is_poll ? "poll" : "-");
		if (s->cost_ns)
			fprintf(f, " %llu", (unsigned long long)s->cost_ns);
		fputc('\n', f);
	}
	fprintf(f, "records\n");
	for (size_t i = 0; i < t->nr; i++) {
		const struct trace_rec *r = &t->recs[i];

		fprintf(f, "%llu %u %s %llu", (unsigned long long)r->ts_ns, r->cpu,
			trace_kind_name(r->kind), (unsigned long long)r->dur_ns);
		if (kind_has_state(r->kind))
			fprintf(f, " %u", r->state);
		if (v2 && r->kind == BPFGOV_EV_IDLE_EXIT) {
			if (r->next_timer_ns == TRACE_NO_TIMER)
				fprintf(f, " -");
			else
				fprintf(f, " %llu", (unsigned long long)r->next_timer_ns);
			fprintf(f, " %s", trace_wake_name(r->wake));
		}
		fputc('\n', f);
	}
	fprintf(f, "end %zu\n", t->nr);
	return ferror(f) ? -EIO : 0;
}

static int fill_trace(FILE *f, void *t)
{
	return trace_write(f, t);
}

int trace_save(const char *path, const struct trace *t, char *err, size_t errlen)
{
	int ret;

	ret = trace_validate(t, err, errlen);
	if (ret)
		return ret;
	/* Written aside and renamed: a reader never sees half a trace under
	 * the final name. */
	ret = write_file_atomic(path, 0644, true, fill_trace, (void *)t);
	if (ret == -ENAMETOOLONG)
		snprintf(err, errlen, "%s: path too long", path);
	else if (ret)
		snprintf(err, errlen, "%s: cannot write: %s", path, strerror(-ret));
	return ret;
}
