/* kq-disk-append: the disk's own append+fdatasync limit (issue 10).
 *
 *   kq-disk-append DIR BATCH_BYTES WRITERS SECONDS
 *
 * WRITERS threads each create DIR/append-<i>.log and, for SECONDS, append
 * BATCH_BYTES with write(2) and then fdatasync(2) it, as the server's log
 * does for a batch (the file grows, so every sync also covers its size).
 * Prints one line: "batch_bytes writers mb_per_s syncs_per_s", MB = 10^6
 * bytes, both summed over the writers. The files are removed at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct writer {
    pthread_t thread;
    char path[4096];
    size_t batch;
    double seconds;
    unsigned long long bytes;
    unsigned long long syncs;
    int err;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *run(void *arg)
{
    struct writer *w = arg;
    char *buf = malloc(w->batch);
    if (buf == NULL) {
        w->err = ENOMEM;
        return NULL;
    }
    memset(buf, 'x', w->batch);
    int fd = open(w->path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        w->err = errno;
        free(buf);
        return NULL;
    }
    double end = now_s() + w->seconds;
    while (now_s() < end) {
        size_t off = 0;
        while (off < w->batch) {
            ssize_t n = write(fd, buf + off, w->batch - off);
            if (n < 0) {
                if (errno == EINTR)
                    continue;
                w->err = errno;
                goto out;
            }
            off += (size_t)n;
        }
        if (fdatasync(fd) < 0) {
            w->err = errno;
            goto out;
        }
        w->bytes += w->batch;
        w->syncs++;
    }
out:
    close(fd);
    unlink(w->path);
    free(buf);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: kq-disk-append DIR BATCH_BYTES WRITERS SECONDS\n");
        return 2;
    }
    long batch = strtol(argv[2], NULL, 10);
    long writers = strtol(argv[3], NULL, 10);
    double seconds = strtod(argv[4], NULL);
    if (batch <= 0 || writers <= 0 || writers > 64 || seconds <= 0) {
        fprintf(stderr, "kq-disk-append: bad arguments\n");
        return 2;
    }
    struct writer *ws = calloc((size_t)writers, sizeof *ws);
    if (ws == NULL)
        return 1;
    double t0 = now_s();
    for (long i = 0; i < writers; i++) {
        snprintf(ws[i].path, sizeof ws[i].path, "%s/append-%ld.log", argv[1], i);
        ws[i].batch = (size_t)batch;
        ws[i].seconds = seconds;
        if (pthread_create(&ws[i].thread, NULL, run, &ws[i]) != 0) {
            fprintf(stderr, "kq-disk-append: pthread_create failed\n");
            return 1;
        }
    }
    unsigned long long bytes = 0, syncs = 0;
    int err = 0;
    for (long i = 0; i < writers; i++) {
        pthread_join(ws[i].thread, NULL);
        bytes += ws[i].bytes;
        syncs += ws[i].syncs;
        if (ws[i].err)
            err = ws[i].err;
    }
    double elapsed = now_s() - t0;
    free(ws);
    if (err) {
        fprintf(stderr, "kq-disk-append: %s\n", strerror(err));
        return 1;
    }
    printf("%ld %ld %.2f %.1f\n", batch, writers, (double)bytes / 1e6 / elapsed,
           (double)syncs / elapsed);
    return 0;
}
