/*
 * gtpclient.h: drive an external GTP engine (GNU Go, KataGo, Leela Zero, a
 * gt-gtp) as a child process: send a command, read its response (the lines
 * up to the empty line that ends it, GTP version 2 section 3.5), with a
 * timeout, and notice when the engine dies.
 *
 * The engine runs as /bin/sh -c COMMAND with its stdin and stdout on one
 * end of a Unix socket pair (written with MSG_NOSIGNAL, so a dead engine is
 * an error return, never a SIGPIPE); its stderr is the caller's. Commands
 * are sent with increasing ids and each response's id is checked.
 */
#ifndef GT_GTPCLIENT_H
#define GT_GTPCLIENT_H
#include <stddef.h>

#include "gt.h"

typedef struct gt_gtpc gt_gtpc;

/* gt_gtpc_open: start command; *out receives the handle (close with
 * gt_gtpc_close). Returns 0 or GT_EIO (fork/socket failed, text in err).
 * An engine that cannot start shows as an error on the first command. */
int gt_gtpc_open(gt_gtpc **out, const char *command, gt_error *err);

/* gt_gtpc_close: read the answer to a command still unread (up to 2 s),
 * send "quit", give the engine up to 2 s to exit (0.2 s after a failed
 * command), then kill it (SIGKILL) and reap it. Returns the engine's wait status (as
 * waitpid), or -1. NULL is a no-op. */
int gt_gtpc_close(gt_gtpc *c);

/* gt_gtpc_set_timeout: seconds to wait for each response (default 60);
 * <= 0 waits for ever. */
void gt_gtpc_set_timeout(gt_gtpc *c, double seconds);

/* gt_gtpc_pid: the engine's process id (of the shell running it). */
int gt_gtpc_pid(const gt_gtpc *c);

/* gt_gtpc_cmd: send one command line (printf format, no newline) and read
 * its response. The response text without "=id " / "?id " and without the
 * final empty line (lines joined by '\n', CRs removed) goes to resp (size
 * bytes, truncated, always NUL-terminated; resp may be NULL). Returns 0 for
 * a success response ('='), 1 for an error response ('?': the engine's
 * message is in resp), or a negative gt_err with text in err: GT_EIO when
 * the engine has exited ("engine exited with status N" / "killed by
 * signal N"), did not answer within the timeout ("no response within X s")
 * or the connection failed; GT_EFORMAT for a response that is not GTP or
 * answers another id. After a negative return the engine is unusable. */
int gt_gtpc_cmd(gt_gtpc *c, char *resp, size_t size, gt_error *err,
                const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* gt_gtpc_send, gt_gtpc_recv: gt_gtpc_cmd in two halves, so that the
 * caller can let several engines think at once (gt-elo asks every engine
 * whose turn it is, then reads the answers). One command at a time per
 * engine: send with a response unread, or recv with none sent, is
 * GT_EINVAL. The timeout counts from the send. Returns as gt_gtpc_cmd's
 * (send: 0 or negative). */
int gt_gtpc_send(gt_gtpc *c, gt_error *err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int gt_gtpc_recv(gt_gtpc *c, char *resp, size_t size, gt_error *err);

/* Helpers: the same returns as gt_gtpc_cmd (1: the engine refused; its
 * message is in err->text). color is "B"/"W"-style text or GT_BLACK/
 * GT_WHITE for gt_gtpc_play_c. */
int gt_gtpc_boardsize(gt_gtpc *c, int n, gt_error *err);
int gt_gtpc_clear_board(gt_gtpc *c, gt_error *err);
int gt_gtpc_komi(gt_gtpc *c, double komi, gt_error *err);
/* gt_gtpc_play: "play COLOR VERTEX" (color 1 black, 2 white; vertex a GTP
 * vertex or "pass"). */
int gt_gtpc_play(gt_gtpc *c, int color, const char *vertex, gt_error *err);
/* gt_gtpc_genmove: "genmove COLOR"; the move goes to vertex (size bytes, 8
 * is enough), normalized: "pass", "resign", or an upper-case vertex
 * such as "D4". */
int gt_gtpc_genmove(gt_gtpc *c, int color, char *vertex, size_t size, gt_error *err);
/* gt_gtpc_genmove in two halves (gt_gtpc_send, gt_gtpc_recv). */
int gt_gtpc_genmove_send(gt_gtpc *c, int color, gt_error *err);
int gt_gtpc_genmove_recv(gt_gtpc *c, char *vertex, size_t size, gt_error *err);

#endif
