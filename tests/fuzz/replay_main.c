/* main() for the replay builds of the fuzz targets (gcc, CTest): runs
 * LLVMFuzzerTestOneInput once over every regular file named on the command
 * line or found (recursively) in the directories named, in name order, so
 * that every seed and reproducer runs under the sanitizers of the build.
 * Prints "replayed N inputs"; exits 1 if a path is unreadable or no input
 * was found. A finding aborts (assertion, sanitizer report). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

#define REPLAY_PATH_BYTES_MAX 4096

static int replay_path(const char *path, long *count);

static int replay_file(const char *path, long *count)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    size_t cap = FUZZ_FILE_INPUT_BYTES_MAX + 1, len = 0;
    uint8_t *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        return -1;
    }
    size_t n;
    while ((n = fread(buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            uint8_t *bigger = realloc(buf, cap * 2);
            if (!bigger)
                break;
            buf = bigger;
            cap *= 2;
        }
    }
    fclose(f);
    fprintf(stderr, "replay %s (%zu bytes)\n", path, len);
    (void)LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    (*count)++;
    return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static int replay_dir(const char *path, long *count)
{
    struct dirent **names;
    int n = scandir(path, &names, NULL, by_name);
    if (n < 0) {
        perror(path);
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < n; i++) {
        const char *e = names[i]->d_name;
        char child[REPLAY_PATH_BYTES_MAX];
        if (e[0] != '.' && rc == 0 &&
            snprintf(child, sizeof child, "%s/%s", path, e) < (int)sizeof child)
            rc = replay_path(child, count);
        free(names[i]);
    }
    free(names);
    return rc;
}

static int replay_path(const char *path, long *count)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        perror(path);
        return -1;
    }
    return S_ISDIR(st.st_mode) ? replay_dir(path, count) : replay_file(path, count);
}

int main(int argc, char **argv)
{
    long count = 0;
    for (int i = 1; i < argc; i++)
        if (replay_path(argv[i], &count) != 0)
            return 1;
    printf("replayed %ld inputs\n", count);
    return count > 0 ? 0 : 1;
}
