/* The simulator's in-memory file system (see sim_fs.h for the model).
 *
 * Representation: each inode stores its current image only, plus an undo
 * log of its unflushed operations (each keeps the bytes it overwrote inside
 * the file as it was then). While operations are pending the image buffer
 * never shrinks, so undoing them never allocates. Each directory stores its
 * current entries, its durable entries and its pending operations. Inodes
 * are reference counted: one reference per current entry, durable entry,
 * pending directory operation and descriptor. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_fs.h"

#define FD_SLOT_BITS 10 /* 1 << FD_SLOT_BITS == SIM_FS_MAX_FDS */
#define FD_GEN_MASK ((1u << 20) - 1)
#define MIN_BUF_BYTES 64

_Static_assert((1 << FD_SLOT_BITS) == SIM_FS_MAX_FDS, "fd slot bits");

typedef struct file_op {
    bool truncate;
    uint64_t pos;      /* pwrite: offset; ftruncate: the new size */
    uint64_t len;      /* pwrite: bytes written; ftruncate: 0 */
    uint64_t old_size; /* file size before the operation */
    uint8_t *old;      /* the previous bytes of [pos, pos + old_len) */
    size_t old_len;
} file_op;

typedef struct inode {
    uint8_t *data; /* current image */
    size_t len, cap;
    file_op *ops; /* unflushed, oldest first */
    size_t n_ops, cap_ops;
    uint64_t undo_bytes; /* sum of ops[].old_len */
    int refs;
    struct inode *prev, *next; /* creation order */
} inode;

typedef struct entry {
    char *name;
    inode *ino;
} entry;

typedef struct entry_list {
    entry *v;
    size_t n, cap;
} entry_list;

enum dir_op_kind { DOP_LINK, DOP_UNLINK, DOP_RENAME };

typedef struct dir_op {
    int kind;
    char *name; /* LINK: the new name; UNLINK: the name removed; RENAME: from */
    char *to;   /* RENAME only */
    inode *ino; /* LINK, RENAME */
} dir_op;

typedef struct dir {
    char *name;
    struct dir *parent;
    struct dir **sub;
    size_t n_sub, cap_sub;
    entry_list cur, dur;
    dir_op *ops;
    size_t n_ops, cap_ops;
} dir;

typedef struct fd_slot {
    inode *ino;
    bool used, writable;
    bool path_fault; /* opened on a path the path fault names */
    uint32_t gen;
} fd_slot;

typedef struct fault {
    int n, err;
} fault;

struct sim_fs {
    kq_fs table;
    dir *root;
    inode *first, *last;
    size_t n_inodes, n_dirs, n_pending;
    uint64_t used_bytes, capacity_bytes;
    fd_slot fds[SIM_FS_MAX_FDS];
    int n_open;
    size_t fd_cursor;
    fault fsync_fault, pwrite_fault, pread_fault;
    int short_n;
    char path_suffix[64]; /* "" : no path fault */
    bool path_at_open;
    int path_err;
    bool faults_paused;
    sim_prng short_prng;
    sim_fs_stats stats;
};

/* ---- small helpers ---------------------------------------------------- */

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "sim_fs: out of memory\n");
        abort();
    }
    return p;
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* Grows *v (elements of size sz) to hold at least need; 0 or -ENOMEM. */
static int reserve(void **v, size_t *cap, size_t need, size_t sz)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap * 2 : 4;
    if (n < need)
        n = need;
    void *p = realloc(*v, n * sz);
    if (!p)
        return -ENOMEM;
    *v = p;
    *cap = n;
    return 0;
}

static bool room_for(const sim_fs *fs, uint64_t extra_bytes)
{
    return fs->used_bytes <= fs->capacity_bytes &&
           extra_bytes <= fs->capacity_bytes - fs->used_bytes;
}

static bool pending_room(const sim_fs *fs, size_t n)
{
    return fs->n_pending + n <= SIM_FS_MAX_PENDING_OPS;
}

static bool path_matches(const sim_fs *fs, const char *path)
{
    size_t n = strlen(fs->path_suffix), len = strlen(path);
    return n > 0 && len >= n && strcmp(path + len - n, fs->path_suffix) == 0;
}

static int take_fault(const sim_fs *fs, fault *f)
{
    if (f->n <= 0 || fs->faults_paused)
        return 0;
    f->n--;
    return f->err;
}

/* ---- inodes: image and undo log ----------------------------------------- */

static inode *inode_new(sim_fs *fs)
{
    inode *ino = calloc(1, sizeof *ino);
    if (!ino)
        return NULL;
    ino->prev = fs->last;
    if (fs->last)
        fs->last->next = ino;
    else
        fs->first = ino;
    fs->last = ino;
    fs->n_inodes++;
    return ino;
}

static void ops_free(sim_fs *fs, inode *ino)
{
    for (size_t i = 0; i < ino->n_ops; i++)
        free(ino->ops[i].old);
    fs->n_pending -= ino->n_ops;
    fs->used_bytes -= ino->undo_bytes;
    ino->n_ops = 0;
    ino->undo_bytes = 0;
}

static void inode_free(sim_fs *fs, inode *ino)
{
    ops_free(fs, ino);
    free(ino->ops);
    fs->used_bytes -= ino->len;
    free(ino->data);
    if (ino->prev)
        ino->prev->next = ino->next;
    else
        fs->first = ino->next;
    if (ino->next)
        ino->next->prev = ino->prev;
    else
        fs->last = ino->prev;
    fs->n_inodes--;
    free(ino);
}

static void inode_ref(inode *ino)
{
    ino->refs++;
}

static void inode_unref(sim_fs *fs, inode *ino)
{
    if (--ino->refs == 0)
        inode_free(fs, ino);
}

static uint64_t durable_size(const inode *ino)
{
    return ino->n_ops ? ino->ops[0].old_size : ino->len;
}

static int image_reserve(inode *ino, uint64_t need)
{
    if (need <= ino->cap)
        return 0;
    if (need > SIZE_MAX / 2)
        return -ENOMEM;
    size_t n = ino->cap ? ino->cap : MIN_BUF_BYTES;
    while (n < need)
        n *= 2;
    uint8_t *p = realloc(ino->data, n);
    if (!p)
        return -ENOMEM;
    ino->data = p;
    ino->cap = n;
    return 0;
}

/* Sets the current length; new bytes read as zeros. Capacity reserved. */
static void image_set_len(sim_fs *fs, inode *ino, uint64_t len)
{
    if (len > ino->len)
        memset(ino->data + ino->len, 0, len - ino->len);
    fs->used_bytes = fs->used_bytes - ino->len + len;
    ino->len = len;
}

/* Everything pending became durable (or was dropped): free the undo log and
 * give back a mostly unused buffer. */
static void inode_settle(sim_fs *fs, inode *ino)
{
    ops_free(fs, ino);
    if (ino->cap > 4 * MIN_BUF_BYTES && ino->len < ino->cap / 4) {
        size_t n = ino->len * 2 > MIN_BUF_BYTES ? ino->len * 2 : MIN_BUF_BYTES;
        uint8_t *p = realloc(ino->data, n);
        if (p) {
            ino->data = p;
            ino->cap = n;
        }
    }
}

/* Undoes op on an image of *len bytes (buffer big enough for every size in
 * the op's history), keeping the first `keep` bytes of a pwrite. */
static void undo_op(uint8_t *data, size_t *len, const file_op *op, uint64_t keep)
{
    if (op->truncate) {
        if (op->old_len)
            memcpy(data + op->pos, op->old, op->old_len);
        *len = op->old_size;
        return;
    }
    if (keep < op->old_len)
        memcpy(data + op->pos + keep, op->old + keep, op->old_len - keep);
    *len = keep > 0 ? max_u64(op->old_size, op->pos + keep) : op->old_size;
}

static int file_ops_reserve(sim_fs *fs, inode *ino)
{
    if (!pending_room(fs, 1))
        return -ENOSPC;
    return reserve((void **)&ino->ops, &ino->cap_ops, ino->n_ops + 1, sizeof *ino->ops);
}

/* The previous bytes of [pos, pos + n) that lay below old_size; a
 * continuation of a merged op appends to its buffer. */
static int save_old(inode *ino, file_op *merge, uint64_t pos, uint64_t n, uint8_t **out)
{
    *out = merge ? merge->old : NULL;
    if (n == 0)
        return 0;
    size_t have = merge ? merge->old_len : 0;
    uint8_t *p = realloc(*out, have + n);
    if (!p)
        return -ENOMEM;
    memcpy(p + have, ino->data + pos, n);
    *out = p;
    return 0;
}

/* pwrite of len > 0 bytes at pos (pos + len fits). A write that starts where
 * the last pending pwrite ended extends that op (same outcomes on a tear). */
static int file_write(sim_fs *fs, inode *ino, const void *buf, uint64_t len, uint64_t pos)
{
    uint64_t old = ino->len, end = pos + len, new_len = max_u64(old, end);
    file_op *last = ino->n_ops ? &ino->ops[ino->n_ops - 1] : NULL;
    file_op *merge = last && !last->truncate && last->pos + last->len == pos ? last : NULL;
    uint64_t base = merge ? merge->old_size : old; /* the size the undo restores */
    uint64_t keep_old = pos < base ? min_u64(len, base - pos) : 0;
    uint64_t delta = new_len - old + keep_old;
    if (!room_for(fs, delta))
        return -ENOSPC;
    int rc = merge ? 0 : file_ops_reserve(fs, ino);
    if (rc == 0)
        rc = image_reserve(ino, new_len);
    uint8_t *saved = NULL;
    if (rc == 0)
        rc = save_old(ino, merge, pos, keep_old, &saved);
    if (rc < 0)
        return rc;
    if (merge) {
        merge->old = saved;
        merge->old_len += keep_old;
        merge->len += len;
    } else {
        ino->ops[ino->n_ops++] = (file_op){false, pos, len, old, saved, keep_old};
        fs->n_pending++;
    }
    ino->undo_bytes += keep_old;
    fs->used_bytes += keep_old;
    image_set_len(fs, ino, new_len);
    memcpy(ino->data + pos, buf, len);
    return 0;
}

static int file_truncate(sim_fs *fs, inode *ino, uint64_t size)
{
    uint64_t old = ino->len;
    if (size == old)
        return 0;
    if (size > old && !room_for(fs, size - old))
        return -ENOSPC;
    int rc = file_ops_reserve(fs, ino);
    if (rc == 0 && size > old)
        rc = image_reserve(ino, size);
    uint8_t *saved = NULL;
    uint64_t cut = size < old ? old - size : 0;
    if (rc == 0)
        rc = save_old(ino, NULL, size, cut, &saved);
    if (rc < 0)
        return rc;
    ino->ops[ino->n_ops++] = (file_op){true, size, 0, old, saved, cut};
    fs->n_pending++;
    ino->undo_bytes += cut;
    fs->used_bytes += cut;
    image_set_len(fs, ino, size);
    return 0;
}

/* Power loss for one file: durable image + a prefix of its ops, the first
 * op not kept whole torn (half the time) if it is a pwrite. */
static void file_power_loss(sim_fs *fs, inode *ino, sim_prng *prng)
{
    size_t n = ino->n_ops;
    size_t kept = (size_t)sim_prng_below(prng, (uint64_t)n + 1);
    uint64_t tear = 0;
    if (kept < n && !ino->ops[kept].truncate && ino->ops[kept].len > 1 &&
        sim_prng_below(prng, 2))
        tear = 1 + sim_prng_below(prng, ino->ops[kept].len - 1);
    size_t len = ino->len;
    for (size_t i = n; i > kept; i--)
        undo_op(ino->data, &len, &ino->ops[i - 1], i - 1 == kept ? tear : 0);
    fs->used_bytes = fs->used_bytes - ino->len + len;
    ino->len = len;
    inode_settle(fs, ino);
}

/* A failed fdatasync (Linux since 4.13, "fsyncgate"): the dirty pages are
 * dropped, so the unflushed writes are gone, and a retried fsync succeeds
 * with nothing to write. Reads then see the durable image. */
static void file_drop_unflushed(sim_fs *fs, inode *ino)
{
    size_t len = ino->len;
    for (size_t i = ino->n_ops; i > 0; i--)
        undo_op(ino->data, &len, &ino->ops[i - 1], 0);
    fs->used_bytes = fs->used_bytes - ino->len + len;
    ino->len = len;
    inode_settle(fs, ino);
}

/* ---- directories and entries -------------------------------------------- */

static long entry_find(const entry_list *l, const char *name)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i].name, name) == 0)
            return (long)i;
    return -1;
}

/* Maps name (owned, consumed) to ino; the list must have room for one more. */
static void entry_set_owned(sim_fs *fs, entry_list *l, char *name, inode *ino)
{
    inode_ref(ino);
    long i = entry_find(l, name);
    if (i >= 0) {
        free(name);
        inode *old = l->v[i].ino;
        l->v[i].ino = ino;
        inode_unref(fs, old);
        return;
    }
    l->v[l->n++] = (entry){name, ino};
}

static void entry_remove(sim_fs *fs, entry_list *l, const char *name)
{
    long i = entry_find(l, name);
    if (i < 0)
        return;
    entry e = l->v[i];
    memmove(&l->v[i], &l->v[i + 1], (l->n - (size_t)i - 1) * sizeof *l->v);
    l->n--;
    free(e.name);
    inode_unref(fs, e.ino);
}

static int entry_reserve(entry_list *l)
{
    return reserve((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v);
}

static void entries_free(sim_fs *fs, entry_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].name);
        inode_unref(fs, l->v[i].ino);
    }
    free(l->v);
    *l = (entry_list){0};
}

/* A copy of src (names duplicated, inodes referenced); 0 or -ENOMEM. */
static int entries_copy(entry_list *dst, const entry_list *src)
{
    *dst = (entry_list){0};
    if (src->n == 0)
        return 0;
    dst->v = malloc(src->n * sizeof *dst->v);
    if (!dst->v)
        return -ENOMEM;
    dst->cap = src->n;
    for (; dst->n < src->n; dst->n++) {
        char *name = strdup(src->v[dst->n].name);
        if (!name) {
            for (size_t i = 0; i < dst->n; i++)
                free(dst->v[i].name);
            free(dst->v);
            return -ENOMEM;
        }
        dst->v[dst->n] = (entry){name, src->v[dst->n].ino};
    }
    for (size_t i = 0; i < dst->n; i++)
        inode_ref(dst->v[i].ino);
    return 0;
}

static void dir_ops_free(sim_fs *fs, dir *d)
{
    for (size_t i = 0; i < d->n_ops; i++) {
        free(d->ops[i].name);
        free(d->ops[i].to);
        if (d->ops[i].ino)
            inode_unref(fs, d->ops[i].ino);
    }
    fs->n_pending -= d->n_ops;
    d->n_ops = 0;
}

static int dir_ops_reserve(sim_fs *fs, dir *d, size_t n)
{
    if (!pending_room(fs, n))
        return -ENOSPC;
    return reserve((void **)&d->ops, &d->cap_ops, d->n_ops + n, sizeof *d->ops);
}

/* Appends a pending op (room reserved; strings owned, consumed). */
static void dir_op_push(sim_fs *fs, dir *d, int kind, char *name, char *to, inode *ino)
{
    if (ino)
        inode_ref(ino);
    d->ops[d->n_ops++] = (dir_op){kind, name, to, ino};
    fs->n_pending++;
}

/* Makes every pending op of d durable: dur becomes a copy of cur. */
static int dir_sync(sim_fs *fs, dir *d)
{
    entry_list copy;
    int rc = entries_copy(&copy, &d->cur);
    if (rc < 0)
        return rc;
    entries_free(fs, &d->dur);
    d->dur = copy;
    dir_ops_free(fs, d);
    return 0;
}

static void dir_op_apply_durable(sim_fs *fs, dir *d, const dir_op *op)
{
    if (entry_reserve(&d->dur) < 0) {
        fprintf(stderr, "sim_fs: out of memory\n");
        abort();
    }
    if (op->kind == DOP_LINK) {
        entry_set_owned(fs, &d->dur, xstrdup(op->name), op->ino);
    } else if (op->kind == DOP_UNLINK) {
        entry_remove(fs, &d->dur, op->name);
    } else {
        entry_set_owned(fs, &d->dur, xstrdup(op->to), op->ino);
        entry_remove(fs, &d->dur, op->name);
    }
}

/* Power loss for d and its subdirectories: durable + a prefix of the ops. */
static void dir_power_loss(sim_fs *fs, dir *d, sim_prng *prng)
{
    size_t kept = (size_t)sim_prng_below(prng, (uint64_t)d->n_ops + 1);
    for (size_t i = 0; i < kept; i++)
        dir_op_apply_durable(fs, d, &d->ops[i]);
    dir_ops_free(fs, d);
    entry_list copy;
    if (entries_copy(&copy, &d->dur) < 0) {
        fprintf(stderr, "sim_fs: out of memory\n");
        abort();
    }
    entries_free(fs, &d->cur);
    d->cur = copy;
    for (size_t i = 0; i < d->n_sub; i++)
        dir_power_loss(fs, d->sub[i], prng);
}

static dir *dir_new(const char *name, dir *parent)
{
    dir *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->name = strdup(name);
    if (!d->name) {
        free(d);
        return NULL;
    }
    d->parent = parent;
    return d;
}

static void dir_free(sim_fs *fs, dir *d)
{
    for (size_t i = 0; i < d->n_sub; i++)
        dir_free(fs, d->sub[i]);
    free(d->sub);
    dir_ops_free(fs, d);
    free(d->ops);
    entries_free(fs, &d->cur);
    entries_free(fs, &d->dur);
    free(d->name);
    free(d);
    fs->n_dirs--;
}

static dir *dir_sub(const dir *d, const char *name)
{
    for (size_t i = 0; i < d->n_sub; i++)
        if (strcmp(d->sub[i]->name, name) == 0)
            return d->sub[i];
    return NULL;
}

/* ---- paths -------------------------------------------------------------- */

/* Copies the next component of *p into name (empty at the end). */
static int next_component(const char **p, char name[SIM_FS_NAME_MAX + 1])
{
    while (**p == '/')
        (*p)++;
    size_t n = strcspn(*p, "/");
    if (n > SIM_FS_NAME_MAX)
        return -ENAMETOOLONG;
    memcpy(name, *p, n);
    name[n] = '\0';
    *p += n;
    return 0;
}

/* Resolves path to its parent directory and last name; name is "" when the
 * path names a directory by itself ("/", "a/.", "a/.."). */
static int resolve(const sim_fs *fs, const char *path, dir **dir_out,
                   char name[SIM_FS_NAME_MAX + 1])
{
    if (!path)
        return -EFAULT;
    if (strnlen(path, SIM_FS_PATH_MAX) >= SIM_FS_PATH_MAX)
        return -ENAMETOOLONG;
    dir *d = fs->root;
    char tok[SIM_FS_NAME_MAX + 1];
    name[0] = '\0';
    for (;;) {
        int rc = next_component(&path, tok);
        if (rc < 0)
            return rc;
        if (tok[0] == '\0')
            break;
        if (name[0] != '\0') {
            dir *s = dir_sub(d, name);
            if (!s)
                return entry_find(&d->cur, name) >= 0 ? -ENOTDIR : -ENOENT;
            d = s;
            name[0] = '\0';
        }
        if (strcmp(tok, "..") == 0)
            d = d->parent ? d->parent : d;
        else if (strcmp(tok, ".") != 0)
            memcpy(name, tok, strlen(tok) + 1);
    }
    *dir_out = d;
    return 0;
}

/* The directory path names. */
static int resolve_dir(const sim_fs *fs, const char *path, dir **out)
{
    char name[SIM_FS_NAME_MAX + 1];
    dir *d;
    int rc = resolve(fs, path, &d, name);
    if (rc < 0)
        return rc;
    if (name[0] != '\0') {
        dir *s = dir_sub(d, name);
        if (!s)
            return entry_find(&d->cur, name) >= 0 ? -ENOTDIR : -ENOENT;
        d = s;
    }
    *out = d;
    return 0;
}

/* The inode list (cur or dur of its directory) maps path to. */
static int resolve_file(const sim_fs *fs, const char *path, bool durable, inode **out)
{
    char name[SIM_FS_NAME_MAX + 1];
    dir *d;
    int rc = resolve(fs, path, &d, name);
    if (rc < 0)
        return rc;
    if (name[0] == '\0' || dir_sub(d, name))
        return -EISDIR;
    const entry_list *l = durable ? &d->dur : &d->cur;
    long i = entry_find(l, name);
    if (i < 0)
        return -ENOENT;
    *out = l->v[i].ino;
    return 0;
}

/* ---- descriptors ---------------------------------------------------------- */

static fd_slot *fd_get(sim_fs *fs, int fd)
{
    if (fd < 0)
        return NULL;
    unsigned u = (unsigned)fd;
    fd_slot *s = &fs->fds[u & (SIM_FS_MAX_FDS - 1)];
    if (!s->used || s->gen != (u >> FD_SLOT_BITS))
        return NULL;
    return s;
}

/* A new descriptor on ino (a free slot must exist: n_open < MAX). */
static int fd_alloc(sim_fs *fs, inode *ino, bool writable)
{
    size_t i = fs->fd_cursor;
    while (fs->fds[i].used)
        i = (i + 1) % SIM_FS_MAX_FDS;
    fs->fd_cursor = (i + 1) % SIM_FS_MAX_FDS;
    fd_slot *s = &fs->fds[i];
    s->gen = (s->gen + 1) & FD_GEN_MASK;
    s->used = true;
    s->writable = writable;
    s->path_fault = false;
    s->ino = ino;
    inode_ref(ino);
    fs->n_open++;
    return (int)((s->gen << FD_SLOT_BITS) | (unsigned)i);
}

static void fd_release(sim_fs *fs, fd_slot *s)
{
    s->used = false;
    fs->n_open--;
    inode *ino = s->ino;
    s->ino = NULL;
    inode_unref(fs, ino);
}

static void fds_close_all(sim_fs *fs)
{
    for (size_t i = 0; i < SIM_FS_MAX_FDS; i++)
        if (fs->fds[i].used)
            fd_release(fs, &fs->fds[i]);
}

/* ---- the kq_fs table: files ---------------------------------------------- */

/* Creates name in d: a new inode, its current entry and a pending LINK. */
static int create_file(sim_fs *fs, dir *d, const char *name, inode **out)
{
    if (fs->n_inodes >= SIM_FS_MAX_FILES)
        return -ENOSPC;
    int rc = entry_reserve(&d->cur);
    if (rc == 0)
        rc = dir_ops_reserve(fs, d, 1);
    if (rc < 0)
        return rc;
    char *n1 = strdup(name), *n2 = strdup(name);
    inode *ino = n1 && n2 ? inode_new(fs) : NULL;
    if (!ino) {
        free(n1);
        free(n2);
        return -ENOMEM;
    }
    entry_set_owned(fs, &d->cur, n1, ino);
    dir_op_push(fs, d, DOP_LINK, n2, NULL, ino);
    *out = ino;
    return 0;
}

static int t_open(void *ctx, const char *path, unsigned flags)
{
    sim_fs *fs = ctx;
    unsigned all = KQ_FS_WRITE | KQ_FS_CREATE | KQ_FS_EXCL | KQ_FS_TRUNC;
    if ((flags & ~all) || ((flags & KQ_FS_TRUNC) && !(flags & KQ_FS_WRITE)))
        return -EINVAL;
    char name[SIM_FS_NAME_MAX + 1];
    dir *d;
    int rc = resolve(fs, path, &d, name);
    if (rc < 0)
        return rc;
    bool matched = path_matches(fs, path);
    if (matched && fs->path_at_open && !fs->faults_paused)
        return fs->path_err;
    bool excl = (flags & KQ_FS_CREATE) && (flags & KQ_FS_EXCL);
    if (name[0] == '\0' || dir_sub(d, name))
        return excl ? -EEXIST : -EISDIR;
    if (fs->n_open >= SIM_FS_MAX_FDS)
        return -EMFILE;
    long i = entry_find(&d->cur, name);
    inode *ino;
    if (i >= 0) {
        if (excl)
            return -EEXIST;
        ino = d->cur.v[i].ino;
        if ((flags & KQ_FS_TRUNC) && (rc = file_truncate(fs, ino, 0)) < 0)
            return rc;
    } else if (!(flags & KQ_FS_CREATE)) {
        return -ENOENT;
    } else if ((rc = create_file(fs, d, name, &ino)) < 0) {
        return rc;
    }
    int fd = fd_alloc(fs, ino, (flags & KQ_FS_WRITE) != 0);
    fd_slot *slot = fd >= 0 ? fd_get(fs, fd) : NULL;
    if (slot)
        slot->path_fault = matched;
    return fd;
}

static int t_dup(void *ctx, int fd)
{
    sim_fs *fs = ctx;
    fd_slot *s = fd_get(fs, fd);
    if (!s)
        return -EBADF;
    if (fs->n_open >= SIM_FS_MAX_FDS)
        return -EMFILE;
    return fd_alloc(fs, s->ino, s->writable);
}

static int t_close(void *ctx, int fd)
{
    sim_fs *fs = ctx;
    fd_slot *s = fd_get(fs, fd);
    if (!s)
        return -EBADF;
    fd_release(fs, s);
    return 0;
}

static ssize_t t_pread(void *ctx, int fd, void *buf, size_t len, uint64_t pos)
{
    sim_fs *fs = ctx;
    fd_slot *s = fd_get(fs, fd);
    if (!s)
        return -EBADF;
    if (len > 0 && !buf)
        return -EFAULT;
    if (pos > INT64_MAX)
        return -EINVAL;
    fs->stats.pread_calls++;
    int rc = take_fault(fs, &fs->pread_fault);
    if (rc < 0)
        return rc;
    inode *ino = s->ino;
    if (pos >= ino->len)
        return 0;
    size_t n = (size_t)min_u64(min_u64(len, ino->len - pos), SSIZE_MAX);
    memcpy(buf, ino->data + pos, n);
    fs->stats.bytes_read += n;
    return (ssize_t)n;
}

static ssize_t t_pwrite(void *ctx, int fd, const void *buf, size_t len, uint64_t pos)
{
    sim_fs *fs = ctx;
    fd_slot *s = fd_get(fs, fd);
    if (!s || !s->writable)
        return -EBADF;
    if (len > 0 && !buf)
        return -EFAULT;
    if (pos > INT64_MAX || len > SSIZE_MAX)
        return -EINVAL;
    fs->stats.pwrite_calls++;
    int rc = take_fault(fs, &fs->pwrite_fault);
    if (rc < 0)
        return rc;
    if (s->path_fault && fs->path_suffix[0] && !fs->path_at_open && !fs->faults_paused)
        return fs->path_err;
    if (fs->short_n > 0 && !fs->faults_paused) {
        fs->short_n--;
        len = (size_t)sim_prng_below(&fs->short_prng, len);
    }
    if (len == 0)
        return 0;
    if ((rc = file_write(fs, s->ino, buf, len, pos)) < 0)
        return rc;
    fs->stats.bytes_written += len;
    return (ssize_t)len;
}

static int t_fdatasync(void *ctx, int fd)
{
    sim_fs *fs = ctx;
    fd_slot *s = fd_get(fs, fd);
    if (!s)
        return -EBADF;
    fs->stats.fdatasync_calls++;
    int rc = take_fault(fs, &fs->fsync_fault);
    if (rc < 0) {
        file_drop_unflushed(fs, s->ino);
        return rc;
    }
    inode_settle(fs, s->ino);
    return 0;
}

static int t_ftruncate(void *ctx, int fd, uint64_t size)
{
    sim_fs *fs = ctx;
    fd_slot *s = fd_get(fs, fd);
    if (!s || !s->writable)
        return -EBADF;
    if (size > INT64_MAX)
        return -EFBIG;
    return file_truncate(fs, s->ino, size);
}

static int t_size(void *ctx, int fd, uint64_t *size_out)
{
    sim_fs *fs = ctx;
    fd_slot *s = fd_get(fs, fd);
    if (!s)
        return -EBADF;
    if (!size_out)
        return -EFAULT;
    *size_out = s->ino->len;
    return 0;
}

/* ---- the kq_fs table: namespace ------------------------------------------ */

static int rename_same_dir(sim_fs *fs, dir *d, const char *from, const char *to, inode *ino)
{
    int rc = entry_reserve(&d->cur);
    if (rc == 0)
        rc = dir_ops_reserve(fs, d, 1);
    if (rc < 0)
        return rc;
    char *e = strdup(to), *f = strdup(from), *t = strdup(to);
    if (!e || !f || !t) {
        free(e);
        free(f);
        free(t);
        return -ENOMEM;
    }
    dir_op_push(fs, d, DOP_RENAME, f, t, ino);
    entry_set_owned(fs, &d->cur, e, ino);
    entry_remove(fs, &d->cur, from);
    return 0;
}

/* Across directories: LINK in the target's list, UNLINK in the source's. */
static int rename_cross_dir(sim_fs *fs, dir *src, const char *from, dir *dst, const char *to,
                            inode *ino)
{
    if (!pending_room(fs, 2))
        return -ENOSPC;
    int rc = entry_reserve(&dst->cur);
    if (rc == 0)
        rc = dir_ops_reserve(fs, dst, 1);
    if (rc == 0)
        rc = dir_ops_reserve(fs, src, 1);
    if (rc < 0)
        return rc;
    char *e = strdup(to), *t = strdup(to), *f = strdup(from);
    if (!e || !t || !f) {
        free(e);
        free(t);
        free(f);
        return -ENOMEM;
    }
    dir_op_push(fs, dst, DOP_LINK, t, NULL, ino);
    entry_set_owned(fs, &dst->cur, e, ino);
    dir_op_push(fs, src, DOP_UNLINK, f, NULL, NULL);
    entry_remove(fs, &src->cur, from);
    return 0;
}

static int t_rename(void *ctx, const char *from, const char *to)
{
    sim_fs *fs = ctx;
    char fname[SIM_FS_NAME_MAX + 1], tname[SIM_FS_NAME_MAX + 1];
    dir *fd, *td;
    int rc = resolve(fs, from, &fd, fname);
    if (rc == 0)
        rc = resolve(fs, to, &td, tname);
    if (rc < 0)
        return rc;
    if (fname[0] == '\0' || dir_sub(fd, fname))
        return -ENOTSUP;
    long fi = entry_find(&fd->cur, fname);
    if (fi < 0)
        return -ENOENT;
    if (tname[0] == '\0' || dir_sub(td, tname))
        return -EISDIR;
    inode *ino = fd->cur.v[fi].ino;
    long ti = entry_find(&td->cur, tname);
    if (ti >= 0 && td->cur.v[ti].ino == ino)
        return 0; /* the same file: nothing to do (POSIX) */
    if (fd == td)
        return rename_same_dir(fs, fd, fname, tname, ino);
    return rename_cross_dir(fs, fd, fname, td, tname, ino);
}

static int t_unlink(void *ctx, const char *path)
{
    sim_fs *fs = ctx;
    char name[SIM_FS_NAME_MAX + 1];
    dir *d;
    int rc = resolve(fs, path, &d, name);
    if (rc < 0)
        return rc;
    if (name[0] == '\0' || dir_sub(d, name))
        return -EISDIR;
    if (entry_find(&d->cur, name) < 0)
        return -ENOENT;
    if ((rc = dir_ops_reserve(fs, d, 1)) < 0)
        return rc;
    char *n = strdup(name);
    if (!n)
        return -ENOMEM;
    dir_op_push(fs, d, DOP_UNLINK, n, NULL, NULL);
    entry_remove(fs, &d->cur, name);
    return 0;
}

/* Durable at once, together with the parent's pending operations. */
static int t_mkdir(void *ctx, const char *path)
{
    sim_fs *fs = ctx;
    char name[SIM_FS_NAME_MAX + 1];
    dir *d;
    int rc = resolve(fs, path, &d, name);
    if (rc < 0)
        return rc;
    if (name[0] == '\0' || dir_sub(d, name) || entry_find(&d->cur, name) >= 0)
        return -EEXIST;
    if (fs->n_dirs >= SIM_FS_MAX_DIRS)
        return -ENOSPC;
    dir *s = dir_new(name, d);
    if (!s)
        return -ENOMEM;
    rc = reserve((void **)&d->sub, &d->cap_sub, d->n_sub + 1, sizeof *d->sub);
    if (rc == 0)
        rc = dir_sync(fs, d);
    if (rc < 0) {
        free(s->name);
        free(s);
        return rc;
    }
    d->sub[d->n_sub++] = s;
    fs->n_dirs++;
    return 0;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* Snapshot of d's names (subdirectories first), so fn may change fs. */
static int dir_names(const dir *d, char ***out, size_t *n_out)
{
    size_t n = d->n_sub + d->cur.n;
    char **names = calloc(n ? n : 1, sizeof *names);
    if (!names)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const char *s = i < d->n_sub ? d->sub[i]->name : d->cur.v[i - d->n_sub].name;
        if (!(names[i] = strdup(s))) {
            free_names(names, i);
            return -ENOMEM;
        }
    }
    *out = names;
    *n_out = n;
    return 0;
}

static int t_list_dir(void *ctx, const char *path, kq_fs_dir_fn fn, void *arg)
{
    sim_fs *fs = ctx;
    if (!fn)
        return -EINVAL;
    dir *d;
    int rc = resolve_dir(fs, path, &d);
    if (rc < 0)
        return rc;
    char **names;
    size_t n;
    if ((rc = dir_names(d, &names, &n)) < 0)
        return rc;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = fn(arg, names[i]);
    free_names(names, n);
    return rc;
}

static int t_fsync_dir(void *ctx, const char *path)
{
    sim_fs *fs = ctx;
    dir *d;
    int rc = resolve_dir(fs, path, &d);
    if (rc < 0)
        return rc;
    fs->stats.fsync_dir_calls++;
    if ((rc = take_fault(fs, &fs->fsync_fault)) < 0)
        return rc;
    return dir_sync(fs, d);
}

/* ---- lifecycle -------------------------------------------------------------- */

sim_fs *sim_fs_create(void)
{
    sim_fs *fs = calloc(1, sizeof *fs);
    if (!fs)
        return NULL;
    fs->root = dir_new("", NULL);
    if (!fs->root) {
        free(fs);
        return NULL;
    }
    fs->n_dirs = 1;
    fs->capacity_bytes = SIM_FS_DEFAULT_CAPACITY_BYTES;
    fs->table = (kq_fs){
        .ctx = fs,
        .open = t_open,
        .dup = t_dup,
        .close = t_close,
        .pread = t_pread,
        .pwrite = t_pwrite,
        .fdatasync = t_fdatasync,
        .ftruncate = t_ftruncate,
        .size = t_size,
        .rename = t_rename,
        .unlink = t_unlink,
        .mkdir = t_mkdir,
        .list_dir = t_list_dir,
        .fsync_dir = t_fsync_dir,
    };
    return fs;
}

void sim_fs_destroy(sim_fs *fs)
{
    if (!fs)
        return;
    fds_close_all(fs);
    dir_free(fs, fs->root);
    while (fs->first) /* unreachable with correct reference counts */
        inode_free(fs, fs->first);
    free(fs);
}

const kq_fs *sim_fs_table(sim_fs *fs)
{
    return &fs->table;
}

void sim_fs_power_loss(sim_fs *fs, sim_prng *prng)
{
    fds_close_all(fs);
    dir_power_loss(fs, fs->root, prng);
    for (inode *ino = fs->first; ino; ino = ino->next)
        file_power_loss(fs, ino, prng);
    fs->stats.power_losses++;
}

void sim_fs_process_kill(sim_fs *fs)
{
    fds_close_all(fs);
    fs->stats.process_kills++;
}

/* ---- faults ------------------------------------------------------------------ */

static void arm(fault *f, int n, int err)
{
    f->n = n > 0 ? n : 0;
    f->err = err < 0 ? err : -EIO;
}

void sim_fs_fail_fsync(sim_fs *fs, int n, int err)
{
    arm(&fs->fsync_fault, n, err);
}

void sim_fs_fail_pwrite(sim_fs *fs, int n, int err)
{
    arm(&fs->pwrite_fault, n, err);
}

void sim_fs_fail_pread(sim_fs *fs, int n, int err)
{
    arm(&fs->pread_fault, n, err);
}

void sim_fs_short_pwrite(sim_fs *fs, int n, sim_prng *prng)
{
    fs->short_n = n > 0 ? n : 0;
    sim_prng_seed(&fs->short_prng, sim_prng_next(prng));
}

void sim_fs_fail_path(sim_fs *fs, const char *suffix, bool at_open, int err)
{
    fs->path_suffix[0] = '\0';
    if (suffix)
        snprintf(fs->path_suffix, sizeof(fs->path_suffix), "%s", suffix);
    fs->path_at_open = at_open;
    fs->path_err = err < 0 ? err : -EIO;
}

void sim_fs_clear_faults(sim_fs *fs)
{
    sim_fs_fail_path(fs, NULL, false, 0);
    arm(&fs->fsync_fault, 0, 0);
    arm(&fs->pwrite_fault, 0, 0);
    arm(&fs->pread_fault, 0, 0);
    fs->short_n = 0;
}

void sim_fs_pause_faults(sim_fs *fs, bool paused)
{
    fs->faults_paused = paused;
}

int sim_fs_flip_durable_bit(sim_fs *fs, const char *path, uint64_t pos, unsigned bit)
{
    inode *ino;
    int rc = resolve_file(fs, path, false, &ino);
    if (rc < 0)
        return rc == -EFAULT || rc == -ENAMETOOLONG ? -EINVAL : rc;
    if (bit > 7 || pos >= durable_size(ino))
        return -EINVAL;
    uint8_t mask = (uint8_t)(1u << bit);
    if (pos < ino->len)
        ino->data[pos] ^= mask;
    for (size_t i = 0; i < ino->n_ops; i++) {
        file_op *op = &ino->ops[i];
        if (pos >= op->pos && pos - op->pos < op->old_len)
            op->old[pos - op->pos] ^= mask;
    }
    return 0;
}

/* ---- inspection ---------------------------------------------------------------- */

typedef struct info_list {
    sim_fs_file_info *v;
    size_t n, cap;
} info_list;

static char *join_path(const char *dirpath, const char *name)
{
    size_t a = strlen(dirpath), b = strlen(name);
    char *p = malloc(a + b + 2);
    if (!p)
        return NULL;
    memcpy(p, dirpath, a);
    p[a] = '/';
    memcpy(p + a + 1, name, b + 1);
    return p;
}

static int collect_dir(const dir *d, const char *dirpath, info_list *out)
{
    for (size_t i = 0; i < d->cur.n; i++) {
        const entry *e = &d->cur.v[i];
        if (reserve((void **)&out->v, &out->cap, out->n + 1, sizeof *out->v) < 0)
            return -ENOMEM;
        char *path = join_path(dirpath, e->name);
        if (!path)
            return -ENOMEM;
        long di = entry_find(&d->dur, e->name);
        out->v[out->n++] = (sim_fs_file_info){
            .path = path,
            .durable_bytes = durable_size(e->ino),
            .current_bytes = e->ino->len,
            .name_durable = di >= 0 && d->dur.v[di].ino == e->ino,
            .unflushed_ops = (int)e->ino->n_ops,
        };
    }
    for (size_t i = 0; i < d->n_sub; i++) {
        char *sub = join_path(dirpath, d->sub[i]->name);
        int rc = sub ? collect_dir(d->sub[i], sub, out) : -ENOMEM;
        free(sub);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int sim_fs_list(sim_fs *fs, sim_fs_list_fn fn, void *arg)
{
    if (!fn)
        return -EINVAL;
    info_list l = {0};
    int rc = collect_dir(fs->root, "", &l);
    for (size_t i = 0; i < l.n && rc == 0; i++)
        rc = fn(arg, &l.v[i]);
    for (size_t i = 0; i < l.n; i++)
        free((char *)l.v[i].path);
    free(l.v);
    return rc;
}

int sim_fs_read_file(sim_fs *fs, const char *path, uint8_t **buf_out, size_t *len_out)
{
    inode *ino;
    int rc = resolve_file(fs, path, false, &ino);
    if (rc < 0)
        return rc == -EFAULT || rc == -ENAMETOOLONG ? -EINVAL : rc;
    uint8_t *p = malloc(ino->len ? ino->len : 1);
    if (!p)
        return -ENOMEM;
    if (ino->len)
        memcpy(p, ino->data, ino->len);
    *buf_out = p;
    *len_out = ino->len;
    return 0;
}

int sim_fs_read_durable_file(sim_fs *fs, const char *path, uint8_t **buf_out, size_t *len_out)
{
    inode *ino;
    int rc = resolve_file(fs, path, true, &ino);
    if (rc < 0)
        return rc == -EFAULT || rc == -ENAMETOOLONG ? -EINVAL : rc;
    /* The buffer never shrank while ops were pending: cap covers history. */
    uint8_t *p = malloc(ino->cap ? ino->cap : 1);
    if (!p)
        return -ENOMEM;
    size_t len = ino->len;
    if (len)
        memcpy(p, ino->data, len);
    for (size_t i = ino->n_ops; i > 0; i--)
        undo_op(p, &len, &ino->ops[i - 1], 0);
    *buf_out = p;
    *len_out = len;
    return 0;
}

sim_fs_stats sim_fs_get_stats(const sim_fs *fs)
{
    return fs->stats;
}

void sim_fs_set_capacity_bytes(sim_fs *fs, uint64_t capacity_bytes)
{
    fs->capacity_bytes = capacity_bytes;
}

uint64_t sim_fs_used_bytes(const sim_fs *fs)
{
    return fs->used_bytes;
}

int sim_fs_open_fds(const sim_fs *fs)
{
    return fs->n_open;
}
