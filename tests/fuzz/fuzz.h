/* Shared pieces of the libFuzzer targets in tests/fuzz: the limits every
 * target decodes under, the libFuzzer entry point, and scratch files in a
 * per-process temporary directory for the targets that parse files. */
#ifndef KQ_FUZZ_H
#define KQ_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The decoders' arena bound, as the handler's (HANDLER_ARENA_BYTES_MAX). */
#define FUZZ_ARENA_BYTES_MAX (64u << 20)
/* Re-encoding a decoded message: a decoded input of n bytes never needs
 * more than this many times n plus slack (defaults filled in for fields an
 * older version lacks stay small). */
#define FUZZ_REENCODE_BYTES_MAX (256u << 20)
/* Inputs longer than this are ignored by the file targets (a segment file,
 * a quorum-state or properties file): libFuzzer's default -max_len is 4096. */
#define FUZZ_FILE_INPUT_BYTES_MAX (1u << 20)
/* Longest path built under the scratch directory. */
#define FUZZ_PATH_BYTES_MAX 4096

/* The entry point every target defines (libFuzzer's, or replay_main.c's). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts with a message naming the broken property (a fuzzer finding). */
#define FUZZ_CHECK(cond, what) fuzz_check((cond), (what), __FILE__, __LINE__)
void fuzz_check(bool ok, const char *what, const char *file, int line);

/* A fresh directory for this process, created on first use under $TMPDIR
 * (else /dev/shm when present, since the log fsyncs, else /tmp) and removed
 * at exit. Returns its path, or NULL if it cannot be created. */
const char *fuzz_scratch_dir(void);
/* Writes len bytes to dir/name (creating or replacing). 0 or -1. */
int fuzz_write_file(const char *dir, const char *name, const void *data, size_t len);
/* Removes everything inside dir (not dir itself), recursively. */
void fuzz_clear_dir(const char *dir);

#endif
