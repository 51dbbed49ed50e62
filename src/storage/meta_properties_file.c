/* meta.properties on disk, through the kq_fs seam (kq/meta_properties.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kq/meta_properties.h"
#include "storage_internal.h"

int kq_meta_properties_load(const kq_fs *fs, const char *dir, kq_meta_properties *out,
                            char *err, size_t errlen)
{
    char path[STORAGE_PATH_MAX + 32];
    int n = snprintf(path, sizeof path, "%s/%s", dir, KQ_META_PROPERTIES_NAME);
    if (n < 0 || (size_t)n >= sizeof path) {
        storage_errf(err, errlen, "log directory path too long: %s", dir);
        return -ENAMETOOLONG;
    }
    int fd = fs->open(fs->ctx, path, KQ_FS_READ);
    if (fd == -ENOENT)
        return 0;
    if (fd < 0) {
        storage_errf(err, errlen, "cannot open %s: %s", path, strerror(-fd));
        return fd;
    }
    char buf[KQ_META_PROPERTIES_BYTES_MAX + 1];
    size_t got = 0;
    for (;;) {
        ssize_t r = fs->pread(fs->ctx, fd, buf + got, sizeof buf - got, got);
        if (r < 0) {
            fs->close(fs->ctx, fd);
            storage_errf(err, errlen, "cannot read %s: %s", path, strerror((int)-r));
            return (int)r;
        }
        if (r == 0 || got + (size_t)r == sizeof buf) {
            got += (size_t)r;
            break;
        }
        got += (size_t)r;
    }
    fs->close(fs->ctx, fd);
    if (got > KQ_META_PROPERTIES_BYTES_MAX) {
        storage_errf(err, errlen, "%s: larger than %d bytes", path, KQ_META_PROPERTIES_BYTES_MAX);
        return -EFBIG;
    }
    char why[256];
    if (kq_meta_properties_parse(buf, got, out, why, sizeof why) != 0) {
        storage_errf(err, errlen, "%s: %s", path, why);
        return -EINVAL;
    }
    return 1;
}

int kq_meta_properties_store(const kq_fs *fs, const char *dir, const kq_meta_properties *m,
                             const char *date, char *err, size_t errlen)
{
    char text[KQ_META_PROPERTIES_BYTES_MAX];
    int n = kq_meta_properties_render(m, date, text, sizeof text);
    if (n < 0) {
        storage_errf(err, errlen, "meta.properties for %s: too long", dir);
        return n;
    }
    int rc = storage_mkdirs(fs, dir);
    if (rc != 0) {
        storage_errf(err, errlen, "cannot create %s: %s", dir, strerror(-rc));
        return rc;
    }
    return storage_atomic_write(fs, dir, KQ_META_PROPERTIES_NAME, text, (size_t)n, err, errlen);
}
