/* A snapshot attempt that failed is never fatal (issue 19 item 9): the
 * encoder refusing a state, memory running out, or the new file not written
 * for want of space or descriptors (ENOSPC, EDQUOT, EMFILE, ENFILE, EFBIG,
 * ENOMEM). The old snapshots stay valid, retention waits (it only uses
 * published ones), the failure is counted (kq_snapshot_failures_total),
 * logged at most once per EXEC_SNAPSHOT_FAILURE_LOG_MS with the count of
 * those not logged, and the attempt is retried after a doubling backoff. A
 * real I/O error (EIO, and anything else) writing the file still stops the
 * node: durability is never traded. */
#include <errno.h>
#include <inttypes.h>

#include "exec_snapshot.h"
#include "kq/log_line.h"
#include "kq/mutants.h"

static bool resource_shortage(int rc)
{
    switch (-rc) {
    case 0: /* encode: nothing was written */
    case ENOSPC:
    case EDQUOT:
    case EMFILE:
    case ENFILE:
    case EFBIG:
    case ENOMEM:
        return true;
    default:
        return false;
    }
}

static void log_failure(kq_exec *x, const char *what, const char *detail)
{
    int64_t now = exec_now(x);
    if (x->snap->fail_logged && now - x->snap->fail_logged_ms < EXEC_SNAPSHOT_FAILURE_LOG_MS) {
        x->snap->fail_unlogged++;
        return;
    }
    log_line("node %d: %s: %s (%" PRIu64 " failure(s) in all, %" PRIu64
             " not logged since the last line); the node keeps serving, retention waits, "
             "retried in %" PRId64 " ms",
             x->cfg.node_id, what, detail, x->snap->failures, x->snap->fail_unlogged,
             x->snap->retry_backoff_ms);
    x->snap->fail_logged = true;
    x->snap->fail_logged_ms = now;
    x->snap->fail_unlogged = 0;
}

void exec_snapshot_failed(kq_exec *x, const char *what, const char *detail, int rc)
{
    if (!resource_shortage(rc) || (x->cfg.mutants & KQ_MUTANT_SNAPSHOT_FAILURE_FATAL)) {
        exec_fatal(x, what, detail);
        return;
    }
    x->snap->failures++;
    int64_t b = x->snap->retry_backoff_ms;
    b = b == 0 ? EXEC_SNAPSHOT_RETRY_MS_MIN : 2 * b;
    if (b > EXEC_SNAPSHOT_RETRY_MS_MAX)
        b = EXEC_SNAPSHOT_RETRY_MS_MAX;
    x->snap->retry_backoff_ms = b;
    x->snap->retry_due_ms = exec_now(x) + b;
    log_failure(x, what, detail);
}

void exec_snapshot_succeeded(kq_exec *x)
{
    x->snap->retry_backoff_ms = 0;
    x->snap->retry_due_ms = 0;
}

bool exec_snapshot_retry_allowed(kq_exec *x)
{
    return exec_now(x) >= x->snap->retry_due_ms;
}
