/* Helpers shared by the fuzz targets: property checks that abort, and a
 * per-process scratch directory for the targets that parse files. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

void fuzz_check(bool ok, const char *what, const char *file, int line)
{
    if (ok)
        return;
    fprintf(stderr, "%s:%d: fuzz property violated: %s\n", file, line, what);
    abort();
}

static char scratch[FUZZ_PATH_BYTES_MAX];

static void remove_scratch(void)
{
    if (!scratch[0])
        return;
    fuzz_clear_dir(scratch);
    rmdir(scratch);
    scratch[0] = '\0';
}

static const char *scratch_parent(void)
{
    const char *t = getenv("TMPDIR");
    if (t && *t)
        return t;
    struct stat st;
    if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0)
        return "/dev/shm";
    return "/tmp";
}

const char *fuzz_scratch_dir(void)
{
    if (scratch[0])
        return scratch;
    int n = snprintf(scratch, sizeof scratch, "%s/kq-fuzz-XXXXXX", scratch_parent());
    if (n < 0 || (size_t)n >= sizeof scratch || !mkdtemp(scratch)) {
        scratch[0] = '\0';
        return NULL;
    }
    atexit(remove_scratch);
    return scratch;
}

int fuzz_write_file(const char *dir, const char *name, const void *data, size_t len)
{
    char path[FUZZ_PATH_BYTES_MAX];
    int n = snprintf(path, sizeof path, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= sizeof path)
        return -1;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return -1;
    const uint8_t *p = data;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w <= 0) {
            close(fd);
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return close(fd) == 0 ? 0 : -1;
}

void fuzz_clear_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char path[FUZZ_PATH_BYTES_MAX];
        int n = snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (n < 0 || (size_t)n >= sizeof path)
            continue;
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            fuzz_clear_dir(path);
            rmdir(path);
        } else {
            unlink(path);
        }
    }
    closedir(d);
}
