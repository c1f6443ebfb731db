/* gtpclient.c: an external GTP engine as a child process (gtpclient.h). */
#include "gtpclient.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct gt_gtpc {
	int fd;          /* our end of the socket pair */
	pid_t pid;       /* the shell running the engine; 0 once reaped */
	int status;      /* its wait status once reaped */
	double timeout;  /* seconds per response, <= 0: none */
	int next_id;
	int broken;      /* a transport error happened */
	int pending;     /* a command sent whose response is unread */
	int pending_id;
	double pending_deadline; /* 0: none */
	char pending_cmd[1024];
	char *in;        /* bytes read but not consumed */
	size_t inlen, incap;
};

int gt_gtpc_open(gt_gtpc **out, const char *command, gt_error *err)
{
	int sv[2];
	*out = NULL;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return gt_error_set(err, GT_EIO, -1, -1, "socketpair: %s", strerror(errno));
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(sv[0]);
		close(sv[1]);
		return gt_error_set(err, GT_EIO, -1, -1, "fork: %s", strerror(e));
	}
	if (pid == 0) {
		/* child: the socket is stdin and stdout (dup2 clears CLOEXEC) */
		if (dup2(sv[1], 0) < 0 || dup2(sv[1], 1) < 0)
			_exit(126);
		/* its own process group, so that closing kills what sh -c started */
		setpgid(0, 0);
		signal(SIGPIPE, SIG_DFL);
		execl("/bin/sh", "sh", "-c", command, (char *)NULL);
		_exit(127);
	}
	close(sv[1]);
	setpgid(pid, pid); /* as the child does: whichever runs first */
	gt_gtpc *c = gt_xcalloc(1, sizeof *c);
	c->fd = sv[0];
	c->pid = pid;
	c->timeout = 60;
	c->next_id = 1;
	*out = c;
	return 0;
}

void gt_gtpc_set_timeout(gt_gtpc *c, double seconds)
{
	c->timeout = seconds;
}

int gt_gtpc_pid(const gt_gtpc *c)
{
	return (int)c->pid;
}

/* Reap the engine if it has exited (waiting up to wait_s); 1 if reaped. */
static int reap(gt_gtpc *c, double wait_s)
{
	double end = gt_now() + wait_s;
	if (!c->pid)
		return 1;
	for (;;) {
		pid_t r = waitpid(c->pid, &c->status, WNOHANG);
		if (r == c->pid || (r < 0 && errno == ECHILD)) {
			c->pid = 0;
			return 1;
		}
		if (gt_now() >= end)
			return 0;
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
}

/* The error for an engine that closed its end: exit status if known. */
static int dead(gt_gtpc *c, gt_error *err, const char *what)
{
	c->broken = 1;
	if (reap(c, 1.0)) {
		if (WIFEXITED(c->status))
			return gt_error_set(err, GT_EIO, -1, -1, "engine exited with status %d%s (%s)",
			                    WEXITSTATUS(c->status),
			                    WEXITSTATUS(c->status) == 127 ? ", command not found?" : "", what);
		if (WIFSIGNALED(c->status))
			return gt_error_set(err, GT_EIO, -1, -1, "engine killed by signal %d (%s)",
			                    WTERMSIG(c->status), what);
	}
	return gt_error_set(err, GT_EIO, -1, -1, "engine closed its output (%s)", what);
}

static int send_all(gt_gtpc *c, const char *s, size_t n, gt_error *err)
{
	while (n > 0) {
		ssize_t k = send(c->fd, s, n, MSG_NOSIGNAL);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && (errno == EPIPE || errno == ECONNRESET))
			return dead(c, err, "while sending a command");
		if (k < 0) {
			c->broken = 1;
			return gt_error_set(err, GT_EIO, -1, -1, "send: %s", strerror(errno));
		}
		s += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Read one line (without LF, CRs removed) into a malloc'd string. */
static int read_line(gt_gtpc *c, char **line, double deadline, gt_error *err)
{
	for (;;) {
		char *nl = c->inlen ? memchr(c->in, '\n', c->inlen) : NULL;
		if (nl) {
			size_t k = (size_t)(nl - c->in), m = 0;
			char *s = gt_xmalloc(k + 1);
			for (size_t i = 0; i < k; i++)
				if (c->in[i] != '\r')
					s[m++] = c->in[i];
			s[m] = 0;
			memmove(c->in, nl + 1, c->inlen - k - 1);
			c->inlen -= k + 1;
			*line = s;
			return 0;
		}
		int ms = -1;
		if (deadline > 0) {
			double left = deadline - gt_now();
			if (left <= 0) {
				c->broken = 1;
				return gt_error_set(err, GT_EIO, -1, -1, "no response within %g s", c->timeout);
			}
			ms = (int)(left * 1000) + 1;
		}
		struct pollfd p = { c->fd, POLLIN, 0 };
		int r = poll(&p, 1, ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			c->broken = 1;
			return gt_error_set(err, GT_EIO, -1, -1, "poll: %s", strerror(errno));
		}
		if (r == 0)
			continue; /* the deadline check above ends it */
		if (c->inlen + 4096 > c->incap) {
			if (c->incap > (64u << 20)) {
				c->broken = 1;
				return gt_error_set(err, GT_EFORMAT, -1, -1, "engine response over 64 MiB");
			}
			c->incap = 2 * c->incap + 4096;
			c->in = gt_xrealloc(c->in, c->incap);
		}
		ssize_t k = read(c->fd, c->in + c->inlen, c->incap - c->inlen);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno != ECONNRESET) {
			c->broken = 1;
			return gt_error_set(err, GT_EIO, -1, -1, "read: %s", strerror(errno));
		}
		if (k <= 0)
			return dead(c, err, "while waiting for a response");
		c->inlen += (size_t)k;
	}
}

static void copy_out(char *resp, size_t size, const char *s)
{
	if (!resp || size == 0)
		return;
	snprintf(resp, size, "%s", s);
}

static int vsend(gt_gtpc *c, gt_error *err, const char *fmt, va_list ap)
{
	char *cmd = c->pending_cmd;
	int rc;
	if (c->broken)
		return gt_error_set(err, GT_EIO, -1, -1, "engine connection already failed");
	if (c->pending)
		return gt_error_set(err, GT_EINVAL, -1, -1, "a response is still unread");
	int k = vsnprintf(cmd, sizeof c->pending_cmd, fmt, ap);
	if (k < 0 || k >= (int)sizeof c->pending_cmd - 16 || strpbrk(cmd, "\n\r")) {
		cmd[0] = 0;
		return gt_error_set(err, GT_EINVAL, -1, -1, "bad command line");
	}
	int id = c->next_id++;
	char line[1100];
	int n = snprintf(line, sizeof line, "%d %s\n", id, cmd);
	if ((rc = send_all(c, line, (size_t)n, err)) < 0)
		return rc;
	c->pending = 1;
	c->pending_id = id;
	c->pending_deadline = c->timeout > 0 ? gt_now() + c->timeout : 0;
	return 0;
}

int gt_gtpc_send(gt_gtpc *c, gt_error *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = vsend(c, err, fmt, ap);
	va_end(ap);
	return rc;
}

int gt_gtpc_recv(gt_gtpc *c, char *resp, size_t size, gt_error *err)
{
	int rc;
	copy_out(resp, size, "");
	if (c->broken)
		return gt_error_set(err, GT_EIO, -1, -1, "engine connection already failed");
	if (!c->pending)
		return gt_error_set(err, GT_EINVAL, -1, -1, "no command is waiting for its response");
	c->pending = 0;
	const char *cmd = c->pending_cmd;
	int id = c->pending_id;
	double deadline = c->pending_deadline;
	char *l = NULL;
	/* skip empty lines before the response */
	do {
		free(l);
		if ((rc = read_line(c, &l, deadline, err)) < 0)
			return rc;
	} while (l[0] == 0);
	if (l[0] != '=' && l[0] != '?') {
		gt_error_set(err, GT_EFORMAT, -1, -1, "not a GTP response to '%s': '%.80s'", cmd, l);
		free(l);
		c->broken = 1;
		return GT_EFORMAT;
	}
	int ok = l[0] == '=';
	char *p = l + 1;
	long got = -1;
	if (isdigit((unsigned char)*p))
		got = strtol(p, &p, 10);
	if (got != id) {
		gt_error_set(err, GT_EFORMAT, -1, -1, "response id %ld to command id %d ('%s')", got, id, cmd);
		free(l);
		c->broken = 1;
		return GT_EFORMAT;
	}
	while (*p == ' ' || *p == '\t')
		p++;
	size_t blen = strlen(p), bcap = blen + 1;
	char *body = gt_xmalloc(bcap);
	memcpy(body, p, blen + 1);
	free(l);
	/* further lines up to the empty one */
	for (;;) {
		if ((rc = read_line(c, &l, deadline, err)) < 0) {
			free(body);
			return rc;
		}
		if (l[0] == 0) {
			free(l);
			break;
		}
		size_t m = strlen(l);
		if (blen + m + 2 > bcap) {
			bcap = 2 * (blen + m + 2);
			body = gt_xrealloc(body, bcap);
		}
		body[blen++] = '\n';
		memcpy(body + blen, l, m + 1);
		blen += m;
		free(l);
	}
	copy_out(resp, size, body);
	if (!ok)
		gt_error_set(err, 1, -1, -1, "%s", body);
	free(body);
	return ok ? 0 : 1;
}

int gt_gtpc_cmd(gt_gtpc *c, char *resp, size_t size, gt_error *err, const char *fmt, ...)
{
	va_list ap;
	copy_out(resp, size, "");
	va_start(ap, fmt);
	int rc = vsend(c, err, fmt, ap);
	va_end(ap);
	return rc ? rc : gt_gtpc_recv(c, resp, size, err);
}

int gt_gtpc_close(gt_gtpc *c)
{
	int status = -1;
	if (!c)
		return -1;
	if (!c->broken && c->pid) {
		gt_error e;
		c->timeout = 2;
		if (c->pending) { /* an abandoned genmove: its answer, then quit */
			c->pending_deadline = gt_now() + 2;
			(void)gt_gtpc_recv(c, NULL, 0, &e);
		}
		gt_gtpc_cmd(c, NULL, 0, &e, "quit");
	}
	shutdown(c->fd, SHUT_RDWR);
	close(c->fd);
	pid_t group = c->pid;
	if (!reap(c, c->broken ? 0.2 : 2.0)) {
		kill(-group, SIGKILL);
		waitpid(c->pid, &c->status, 0);
		c->pid = 0;
	}
	if (group > 0)
		kill(-group, SIGKILL); /* what the engine's shell left running */
	status = c->status;
	free(c->in);
	free(c);
	return status;
}

static const char *color_name(int color)
{
	return color == 2 ? "white" : "black";
}

int gt_gtpc_boardsize(gt_gtpc *c, int n, gt_error *err)
{
	return gt_gtpc_cmd(c, NULL, 0, err, "boardsize %d", n);
}

int gt_gtpc_clear_board(gt_gtpc *c, gt_error *err)
{
	return gt_gtpc_cmd(c, NULL, 0, err, "clear_board");
}

int gt_gtpc_komi(gt_gtpc *c, double komi, gt_error *err)
{
	return gt_gtpc_cmd(c, NULL, 0, err, "komi %g", komi);
}

int gt_gtpc_play(gt_gtpc *c, int color, const char *vertex, gt_error *err)
{
	return gt_gtpc_cmd(c, NULL, 0, err, "play %s %s", color_name(color), vertex);
}

int gt_gtpc_genmove_send(gt_gtpc *c, int color, gt_error *err)
{
	return gt_gtpc_send(c, err, "genmove %s", color_name(color));
}

int gt_gtpc_genmove_recv(gt_gtpc *c, char *vertex, size_t size, gt_error *err)
{
	char r[64];
	int rc = gt_gtpc_recv(c, r, sizeof r, err);
	if (rc != 0) {
		copy_out(vertex, size, "");
		return rc;
	}
	for (char *p = r; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	if (strcmp(r, "pass") && strcmp(r, "resign")) {
		for (char *p = r; *p; p++)
			*p = (char)toupper((unsigned char)*p);
		if (!isalpha((unsigned char)r[0]) || !isdigit((unsigned char)r[1]) || strlen(r) > 3)
			return gt_error_set(err, GT_EFORMAT, -1, -1, "genmove answered '%s'", r);
	}
	copy_out(vertex, size, r);
	return 0;
}

int gt_gtpc_genmove(gt_gtpc *c, int color, char *vertex, size_t size, gt_error *err)
{
	int rc = gt_gtpc_genmove_send(c, color, err);
	if (rc) {
		copy_out(vertex, size, "");
		return rc;
	}
	return gt_gtpc_genmove_recv(c, vertex, size, err);
}
