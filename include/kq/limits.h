/* Limits that bound what a client or peer can make the server hold, with
 * their defaults, and the relations between them checked at compile time.
 * Figures a properties key can override are the defaults of that key. */
#ifndef KQ_LIMITS_H
#define KQ_LIMITS_H

#include <stdint.h>

/* socket.request.max.bytes default (Kafka's, 100 MiB): the largest request
 * frame a connection may send; a larger size prefix closes the connection. */
#define KQ_REQUEST_FRAME_BYTES_DEFAULT (100u << 20)

/* queued.max.request.bytes default: the server-wide budget of read buffers
 * for requests being received (every connection's buffer, whole frames
 * reserved up front). Past it, a connection that would need more buffer
 * stops reading until memory is freed. Kafka's default is -1 (unbounded);
 * ours is always bounded (docs/deviations.md). */
#define KQ_QUEUED_REQUEST_BYTES_DEFAULT (256u << 20)

/* connections.max.idle.ms default (Kafka's, 10 minutes): a connection with
 * no request being handled and no byte read or written for this long is
 * closed. */
#define KQ_CONNECTION_IDLE_MS_DEFAULT (10 * 60 * 1000)

/* Step in which a connection's read buffer grows while the size of the
 * frame being read is unknown or small (a known frame is reserved whole). */
#define KQ_NET_READ_CHUNK_BYTES (64u << 10)

/* Largest consumer Fetch response (Kafka's fetch.max.bytes default). */
#define KQ_FETCH_RESPONSE_BYTES_MAX (55u << 20)

/* Per connection: bytes of responses completed but not yet taken by the
 * kernel (waiting for an earlier response, or inside a uv_write) past which
 * the server stops reading that connection until they drain below it. A
 * connection's queue is therefore at most this plus the responses of the
 * requests already being handled (at most NET_SLOTS_PER_CONN of them). */
#define KQ_CONN_WRITE_QUEUE_BYTES_MAX (64u << 20)

_Static_assert(KQ_CONN_WRITE_QUEUE_BYTES_MAX >= KQ_FETCH_RESPONSE_BYTES_MAX,
               "a client that reads its responses is never paused by one maximal Fetch answer");
_Static_assert(KQ_QUEUED_REQUEST_BYTES_DEFAULT >= KQ_REQUEST_FRAME_BYTES_DEFAULT,
               "queued.max.request.bytes must admit one frame of socket.request.max.bytes "
               "(Kafka refuses a smaller positive value)");
_Static_assert(KQ_QUEUED_REQUEST_BYTES_DEFAULT >=
                   KQ_REQUEST_FRAME_BYTES_DEFAULT + 4 + KQ_NET_READ_CHUNK_BYTES,
               "by default a maximal frame (with its size prefix) fits beside another "
               "connection's read buffer");
_Static_assert(KQ_REQUEST_FRAME_BYTES_DEFAULT <= INT32_MAX,
               "frame sizes are int32 on the wire");
_Static_assert(KQ_NET_READ_CHUNK_BYTES <= KQ_REQUEST_FRAME_BYTES_DEFAULT,
               "a read step never exceeds the largest frame");

/* ---- the quorum (src/raft, src/exec, src/config) */
#define RAFT_VOTERS_MAX 16
#define RAFT_OBSERVERS_MAX 16
#define KQ_CONFIG_VOTERS_MAX RAFT_VOTERS_MAX
/* listeners= entries and the length of a listener name (with its NUL). */
#define KQ_CONFIG_LISTENERS_MAX 8
#define KQ_CONFIG_LISTENER_NAME_BYTES_MAX 64
/* Principals per authorizer list (super.users, acl.*.principals) and the
 * length of one ("User:name", with its NUL). */
#define KQ_CONFIG_PRINCIPALS_MAX 32
#define KQ_CONFIG_PRINCIPAL_BYTES_MAX 128
/* ssl.* lines kept (plain and per-listener forms) and their values' bytes. */
#define KQ_CONFIG_SSL_ENTRIES_MAX 128
#define KQ_CONFIG_SSL_TEXT_BYTES_MAX (64u << 10)
#define EXEC_VOTERS_MAX RAFT_VOTERS_MAX
/* The executor's peer table (KIP-853, src/exec/exec_peer.h): the configured
 * voters, kept for the process's life, and every voter of the set in force
 * (KQ_VOTER_SET_MAX, defined below), and the leader followed while it is
 * neither (a removed leader leads until its removal commits); other slots
 * are freed. */
#define EXEC_PEERS_MAX (EXEC_VOTERS_MAX + RAFT_VOTERS_MAX + 1 + RAFT_BOOTSTRAP_SERVERS_MAX)
/* Send failures to a node without a slot (the core addressing a leader it
 * learned of before the voter set naming it): kept this many nodes; more
 * are dropped and the core's request timeout stands in. */
#define EXEC_PEERS_UNKNOWN_FAILED_MAX 4
#define HANDLER_NODES_MAX EXEC_PEERS_MAX    /* endpoints the handlers know */
#define HANDLER_DENIAL_LOG_MS 1000          /* authorization denials logged per op */
/* Actions one raft_step may return; optional work keeps a reserve free. */
#define RAFT_ACTIONS_MAX 64
#define RAFT_PARKED_FETCH_MAX 64            /* replica fetches a leader holds */
#define RAFT_EPOCH_CACHE_MAX 4096           /* leader epochs remembered */
/* The largest KIP-630 snapshot file written, received or read (src/storage/
 * snapshot_file.c refuses larger ones with -EFBIG). */
#define KQ_SNAPSHOT_BYTES_MAX (64u << 20)
/* Largest quorum.append.linger.ms: a linger must stay well inside the
 * fetch timeout, or followers' long polls would expire while it runs. */
#define RAFT_APPEND_LINGER_MS_MAX 1000

/* ---- the executor (src/exec) */
#define EXEC_PRODUCERS_MAX 65536            /* idempotent producers remembered */
#define EXEC_FETCH_MAX_WAIT_MS 500          /* a follower's long poll (Kafka's) */
/* A follower's fetch size: Kafka's replica.fetch.max.bytes default. Under
 * load each answer carries what the leader flushed since the last one (well
 * under 1 MiB at 200 MB/s); a larger size only grows the leader's resident
 * memory by one such buffer per follower (8 MiB cost 30 MB of RSS). A batch
 * larger than this is still sent whole. */
#define EXEC_FETCH_MAX_BYTES (1u << 20)
#define EXEC_FORWARDS_MAX 64                /* relayed requests in flight */
#define EXEC_CLUSTER_ID_BYTES_MAX 256
#define EXEC_PATH_BYTES_MAX 4096
#define EXEC_PEER_ERROR_LOG_MS 10000        /* a peer's error logged once per 10 s */
/* Error codes remembered per peer for those lines (issue 22 item 5: once per
 * peer and code); a new code beyond them takes the oldest one's place. */
#define EXEC_PEER_ERROR_CODES_MAX 8
/* Asking a peer for its client listener (DescribeCluster): again after a
 * failure, and to refresh what it said (it may have restarted elsewhere). */
#define EXEC_ENDPOINT_RETRY_MS 1000
#define EXEC_ENDPOINT_REFRESH_MS 30000
/* ... and after an answer it could not use (Kafka's TestRaftServer answers
 * DescribeCluster UNKNOWN_SERVER_ERROR and logs an ERROR each time: issue 22). */
#define EXEC_ENDPOINT_UNUSABLE_MS 600000
_Static_assert(EXEC_ENDPOINT_RETRY_MS < EXEC_ENDPOINT_REFRESH_MS &&
                   EXEC_ENDPOINT_REFRESH_MS < EXEC_ENDPOINT_UNUSABLE_MS,
               "a failure is retried sooner than a refresh, an unusable answer later");
#define EXEC_ENDPOINT_TAG_SLOT 0x7f          /* the relay slot field of its tag */
/* The built-in workload (--throughput, --record-size; exec_workload.c). */
#define EXEC_WORKLOAD_RECORD_BYTES_MAX (1u << 20) /* one record's value */
#define EXEC_WORKLOAD_BATCH_RECORDS_MAX 4096 /* records appended per batch */
#define EXEC_WORKLOAD_BATCH_BYTES_MAX (8u << 20) /* one batch, values included */
#define EXEC_WORKLOAD_PENDING_MAX 4096       /* batches appended, not yet committed */
#define EXEC_WORKLOAD_REPORT_MS 5000         /* Kafka's TestRaftServer prints every 5 s */
#define EXEC_WORKLOAD_LATENCY_MS_MAX 60000   /* the histogram's last bucket */
/* Producer state is rebuilt at start from this much of the log's tail (whole
 * segments): restart time stays bounded; a producer silent for longer is
 * forgotten, as Kafka expires idle producer ids. */
#define EXEC_PRODUCER_REBUILD_BYTES (1ull << 30)
/* Snapshots and retention: Kafka's defaults for the KRaft metadata log. */
#define EXEC_SNAPSHOT_BYTES_BETWEEN_DEFAULT (20ull << 20)   /* 20 MiB */
#define EXEC_SNAPSHOT_INTERVAL_MS_DEFAULT 3600000ull         /* 1 h */
#define EXEC_RETENTION_BYTES_DEFAULT (100ll << 20)           /* 100 MiB */
#define EXEC_RETENTION_MS_DEFAULT 604800000ll                /* 7 days */
#define EXEC_FETCH_SNAPSHOT_MAX_BYTES_DEFAULT (1u << 20)
/* Snapshot files a node keeps (the one at the log start, the newest and
 * steps between for retention), and how long a leader keeps an older one
 * after a follower last read from it. */
#define EXEC_SNAPSHOTS_MAX 16
#define EXEC_SNAPSHOT_SERVED_KEEP_MS 30000
#define EXEC_RETENTION_CHECK_MS 1000 /* how often time-based retention is checked */
_Static_assert(EXEC_FETCH_SNAPSHOT_MAX_BYTES_DEFAULT <= KQ_SNAPSHOT_BYTES_MAX,
               "one chunk fits in a snapshot");

/* glibc malloc (src/daemon/main.c): blocks up to this size come from the
 * heap, not from a fresh mmap per block; at most the trim threshold of free
 * heap stays mapped. */
#define KQ_MALLOC_MMAP_THRESHOLD_BYTES (4u << 20)
#define KQ_MALLOC_TRIM_THRESHOLD_BYTES (16u << 20)

#define STORAGE_DESCRIBE_BYTES 4352          /* a path and a position */

/* ---- the handlers (src/handler) */
#define HANDLER_ARENA_BYTES_MAX (64u << 20)     /* one request's decoded form */
#define HANDLER_RESPONSE_BYTES_MAX (256u << 20) /* one encoded response */
/* Answers at least this large go to the transport without a copy. */
#define HANDLER_RESPONSE_TAKE_BYTES_MIN (64u << 10)
/* Bytes of a Fetch answer besides its records (headers, topics, partition
 * fields, tagged fields), a size hint only: more partitions just grow it. */
#define HANDLER_FETCH_HEADER_BYTES_MAX 512u
#define HANDLER_RAFT_PENDING_MAX 1024           /* Raft requests waiting for the core */
#define HANDLER_PRODUCE_PENDING_MAX 65536       /* produce requests waiting per acks */
#define HANDLER_FETCH_PARKED_MAX 1024           /* consumer long polls */
#define HANDLER_PRODUCE_PARTITIONS_MAX 64       /* partitions in one Produce */
/* Largest consumer fetch answer, whatever the client asks. */
#define HANDLER_FETCH_BYTES_MAX KQ_FETCH_RESPONSE_BYTES_MAX

/* ---- records (src/record) */
#define RECORD_BATCH_BYTES_MAX (64u << 20)  /* one record batch */
/* Snappy's densest element emits 64 bytes from 3 (a copy with a 2-byte
 * offset), so a block of n bytes cannot decode to more than 22 * n: a block
 * claiming more is refused before anything is reserved. */
#define RECORD_SNAPPY_EXPANSION_MAX 22

/* ---- storage (src/storage) */
#define STORAGE_PATH_MAX 4096
/* Formatted directories (issue 20): cluster.id as the configuration bounds
 * it (Kafka's own ids are 22 characters), a meta.properties larger than
 * this is refused, and a voter's listener name or host in the bootstrap
 * snapshot is at most this long. */
#define KQ_CLUSTER_ID_BYTES_MAX 63
#define KQ_META_PROPERTIES_BYTES_MAX 4096
#define KQ_BOOTSTRAP_NAME_BYTES_MAX 255
/* A voter's listener name or host in a VotersRecord (KIP-853), and the
 * voters one set holds: a record naming more is refused. */
#define KQ_VOTER_NAME_BYTES_MAX KQ_BOOTSTRAP_NAME_BYTES_MAX
#define KQ_VOTER_SET_MAX RAFT_VOTERS_MAX
/* Voter-set changes (VotersRecord / KRaftVersionRecord) the core keeps
 * above its high watermark, plus the one in force at it; a fetched batch
 * that would add more waits for the high watermark to move (follower.c). */
#define RAFT_VOTER_HISTORY_MAX 8
/* controller.quorum.bootstrap.servers (KIP-853): the endpoints an observer
 * asks for the leader, known to the core as ids -2, -3, ... as in Kafka. */
#define RAFT_BOOTSTRAP_SERVERS_MAX 16
#define KQ_CONFIG_BOOTSTRAP_SERVERS_MAX RAFT_BOOTSTRAP_SERVERS_MAX
_Static_assert(KQ_CLUSTER_ID_BYTES_MAX < EXEC_CLUSTER_ID_BYTES_MAX,
               "the executor holds any cluster.id the configuration takes");
/* A leader-epoch-checkpoint larger than this is refused as corrupt (about a
 * million entries; the cache gains one entry per leader epoch). */
#define STORAGE_EPOCH_CHECKPOINT_BYTES_MAX (16u << 20)
/* The recovery point is fdatasync'd every this many flush jobs (and after a
 * roll, on truncation below it, on close): it may lag by that many. */
#define KQ_LOG_RECOVERY_POINT_SYNC_JOBS 64
#define RECOVER_SCAN_CHUNK_BYTES (1u << 20)  /* read at a time by recovery */
#define RECOVER_RESYNC_BYTES_MAX (64u << 20) /* a repair looks this far past damage */
/* Bytes read or written per call while copying a snapshot file. */
#define KQ_SNAPSHOT_IO_CHUNK_BYTES (1u << 20)
/* The log-start-offset-checkpoint is at most this long (one entry). */
#define STORAGE_START_CHECKPOINT_BYTES_MAX 256

/* ---- files and inputs bounded when read */
#define CFG_LINE_MAX 16384                /* one properties line */
#define QSTATE_FILE_MAX 65536             /* the quorum-state file */
#define LEADER_CHANGE_VOTERS_MAX 4096     /* voters a LeaderChange record may list */
#define ZSTD_WINDOW_LOG_MAX 26            /* zstd window a batch may ask for (64 MiB) */
#define PEER_QUEUE_MAX 256                /* requests queued per outbound peer */

/* ---- the core and net internals */
/* One control batch the leader builds: LeaderChange with every voter, and
 * at the start of a KIP-853 epoch KRaftVersion and Voters records with
 * every voter's endpoint (about 560 bytes each at the longest names). */
#define RAFT_LC_BATCH_BYTES_MAX 16384
#define WRITE_BUFS_MAX 64             /* buffers in one gathered uv_write */
#define EXEC_PRODUCER_ID_BLOCK 1000   /* producer ids reserved per durable write */

_Static_assert(LEADER_CHANGE_VOTERS_MAX >= RAFT_VOTERS_MAX,
               "our own LeaderChange records parse back");
_Static_assert((1ull << ZSTD_WINDOW_LOG_MAX) <= RECORD_BATCH_BYTES_MAX,
               "a zstd window never exceeds the largest batch it can decode into");
_Static_assert(PEER_QUEUE_MAX >= 2 * RAFT_ACTIONS_MAX,
               "a peer queue holds a full output of sends");
_Static_assert(RECORD_BATCH_BYTES_MAX <= HANDLER_RESPONSE_BYTES_MAX - (1u << 20),
               "a maximal batch fits one fetch answer with its headers");
_Static_assert(RECORD_BATCH_BYTES_MAX <= HANDLER_ARENA_BYTES_MAX,
               "a request carrying a maximal batch decodes within the arena");
_Static_assert(RECOVER_SCAN_CHUNK_BYTES <= RECORD_BATCH_BYTES_MAX,
               "recovery reads a batch in chunks no larger than a batch");
_Static_assert(RAFT_LC_BATCH_BYTES_MAX >= 61 + 16 + 8 * RAFT_VOTERS_MAX,
               "a LeaderChange batch header, record and every voter fit");
_Static_assert(RAFT_VOTERS_MAX <= 32, "per-voter bit sets are 32 bits wide");
_Static_assert(RAFT_LC_BATCH_BYTES_MAX >= 61 + 3 * 16 + 8 * RAFT_VOTERS_MAX + 8 +
                   KQ_VOTER_SET_MAX * (4 + 16 + 1 + 2 * (KQ_VOTER_NAME_BYTES_MAX + 2) + 2 + 6 + 2),
               "a start-of-epoch batch with every voter's longest endpoint fits");
_Static_assert(KQ_CONFIG_BOOTSTRAP_SERVERS_MAX >= KQ_CONFIG_VOTERS_MAX,
               "a servers list the parser takes fits the bootstrap servers");
_Static_assert(RAFT_VOTER_HISTORY_MAX >= 4,
               "the entry in force, a start-of-epoch copy and one change in flight fit");
_Static_assert(RAFT_ACTIONS_MAX >= 2 * RAFT_VOTERS_MAX,
               "one output can address every voter twice (request and answer)");
_Static_assert(RAFT_PARKED_FETCH_MAX <= HANDLER_RAFT_PENDING_MAX,
               "every fetch the core parks holds a pending handler token");
_Static_assert(HANDLER_RAFT_PENDING_MAX <= 0xffff, "a token holds the slot in 16 bits");
_Static_assert(EXEC_FORWARDS_MAX <= 128, "a relay tag holds the slot in 7 bits");
_Static_assert(EXEC_FORWARDS_MAX <= EXEC_ENDPOINT_TAG_SLOT && EXEC_ENDPOINT_TAG_SLOT < 128,
               "an endpoint request's tag names no relay slot");
_Static_assert(EXEC_ENDPOINT_RETRY_MS < EXEC_ENDPOINT_REFRESH_MS, "retries come sooner");
_Static_assert(EXEC_PEERS_MAX >= EXEC_VOTERS_MAX + KQ_VOTER_SET_MAX + 1,
               "the configured voters, the set in force and the leader each have a slot");
_Static_assert(EXEC_PEERS_MAX <= 0xff, "an endpoint request's tag holds the slot in 8 bits");
_Static_assert(KQ_CONFIG_LISTENERS_MAX < 0xff, "... and the listener kind in 8 bits");
_Static_assert(EXEC_WORKLOAD_RECORD_BYTES_MAX + 64 <= EXEC_WORKLOAD_BATCH_BYTES_MAX,
               "one record of the largest size fits a batch");
_Static_assert(HANDLER_RESPONSE_BYTES_MAX >= (uint64_t)HANDLER_FETCH_BYTES_MAX + (1u << 20),
               "a maximal consumer Fetch answer fits one response with its headers");
_Static_assert(HANDLER_RESPONSE_BYTES_MAX >= (uint64_t)EXEC_FETCH_MAX_BYTES + (1u << 20),
               "a follower's fetch answer fits one response");
_Static_assert(EXEC_FETCH_MAX_BYTES + (1u << 20) <= KQ_MALLOC_MMAP_THRESHOLD_BYTES,
               "a follower's fetch answer and its copies come from the heap");
_Static_assert(KQ_MALLOC_TRIM_THRESHOLD_BYTES >= 2 * KQ_MALLOC_MMAP_THRESHOLD_BYTES,
               "freeing one heap block never trims memory the next one needs");
_Static_assert(KQ_MALLOC_MMAP_THRESHOLD_BYTES <= INT32_MAX && KQ_MALLOC_TRIM_THRESHOLD_BYTES <= INT32_MAX,
               "mallopt takes an int");
_Static_assert(EXEC_FETCH_MAX_BYTES <= KQ_CONN_WRITE_QUEUE_BYTES_MAX,
               "a follower's fetch answer never pauses the leader's connection alone");

/* ---- authentication (src/auth, include/kq/auth.h) */
#define AUTH_USERS_MAX 4096                 /* users in the credentials file */
#define AUTH_USERNAME_BYTES_MAX 255         /* one user name, unescaped */
#define AUTH_PASSWORD_BYTES_MAX 1024        /* a PLAIN password, the CLI's password file */
#define AUTH_SALT_BYTES_MIN 8               /* a stored salt, decoded */
#define AUTH_SALT_BYTES_MAX 64
#define AUTH_SALT_BYTES_DEFAULT 32          /* what the CLI draws, and fake salts */
#define AUTH_HASH_BYTES_MAX 64              /* SHA-512's output */
/* RFC 7677 section 4 asks for at least 4096; the maximum is Kafka's
 * (ScramMechanism) and bounds the CPU a PLAIN login or the CLI costs. */
#define AUTH_SCRAM_ITERATIONS_MIN 4096
#define AUTH_SCRAM_ITERATIONS_MAX 16384
#define AUTH_SCRAM_ITERATIONS_DEFAULT 4096  /* the CLI's, and fake credentials' */
#define AUTH_SCRAM_CLIENT_NONCE_BYTES_MAX 256
#define AUTH_SCRAM_SERVER_NONCE_RANDOM_BYTES 24  /* random bytes behind the server's nonce */
#define AUTH_SCRAM_SERVER_NONCE_BYTES_MAX 64     /* its printable form */
#define AUTH_SCRAM_MESSAGE_BYTES_MAX 2048   /* one client SCRAM message */
#define AUTH_SASL_REPLY_BYTES_MAX 512       /* one server SASL message */
#define AUTH_PLAIN_MESSAGE_BYTES_MAX (2 * AUTH_USERNAME_BYTES_MAX + AUTH_PASSWORD_BYTES_MAX + 2)
#define AUTH_PRINCIPAL_BYTES_MAX (5 + AUTH_USERNAME_BYTES_MAX + 1) /* "User:" name NUL */
#define AUTH_REASON_BYTES_MAX 256           /* a failure's reason, for the log */
#define AUTH_CRED_LINE_BYTES_MAX 1024       /* one credentials-file line */
#define AUTH_CRED_FILE_BYTES_MAX (16u << 20) /* the whole credentials file */

/* Length of the base64 form of n bytes (with padding). */
#define AUTH_B64_BYTES(n) (4 * (((n) + 2) / 3))
/* One "SCRAM-SHA-512=salt=..,stored_key=..,server_key=..,iterations=16384". */
#define AUTH_CRED_MECH_BYTES_MAX                                                   \
    (15 + 5 + AUTH_B64_BYTES(AUTH_SALT_BYTES_MAX) + 12 +                           \
     2 * AUTH_B64_BYTES(AUTH_HASH_BYTES_MAX) + 12 + 12 + 5)

_Static_assert(AUTH_USERNAME_BYTES_MAX + 2 * (1 + AUTH_CRED_MECH_BYTES_MAX) + 2 <=
                   AUTH_CRED_LINE_BYTES_MAX,
               "a line with the longest name and both mechanisms fits");
_Static_assert((uint64_t)AUTH_USERS_MAX * AUTH_CRED_LINE_BYTES_MAX <= AUTH_CRED_FILE_BYTES_MAX,
               "a file of the most users with the longest lines can be read");
_Static_assert(AUTH_SALT_BYTES_MIN <= AUTH_SALT_BYTES_DEFAULT &&
                   AUTH_SALT_BYTES_DEFAULT <= AUTH_SALT_BYTES_MAX,
               "the CLI's salts are within what the file accepts");
_Static_assert(AUTH_SALT_BYTES_DEFAULT == 32, "fake salts are one HMAC-SHA-256");
_Static_assert(AUTH_SCRAM_ITERATIONS_MIN >= 4096, "RFC 7677 section 4");
_Static_assert(AUTH_SCRAM_ITERATIONS_MIN <= AUTH_SCRAM_ITERATIONS_DEFAULT &&
                   AUTH_SCRAM_ITERATIONS_DEFAULT <= AUTH_SCRAM_ITERATIONS_MAX,
               "the default iteration count is accepted");
_Static_assert(AUTH_B64_BYTES(AUTH_SCRAM_SERVER_NONCE_RANDOM_BYTES) <=
                   AUTH_SCRAM_SERVER_NONCE_BYTES_MAX,
               "the server's random nonce part fits its printable form");
/* client-first: "n,a=" authzid "," "n=" user ",r=" nonce, names escaped
 * (each byte at most 3: "=2C"). */
_Static_assert(4 + 3 * AUTH_USERNAME_BYTES_MAX + 1 + 2 + 3 * AUTH_USERNAME_BYTES_MAX + 3 +
                       AUTH_SCRAM_CLIENT_NONCE_BYTES_MAX <=
                   AUTH_SCRAM_MESSAGE_BYTES_MAX,
               "the longest valid client-first message is accepted");
/* client-final: "c=" base64(gs2 header) ",r=" nonce ",p=" base64(proof). */
_Static_assert(2 + AUTH_B64_BYTES(4 + 3 * AUTH_USERNAME_BYTES_MAX + 1) + 3 +
                       AUTH_SCRAM_CLIENT_NONCE_BYTES_MAX + AUTH_SCRAM_SERVER_NONCE_BYTES_MAX +
                       3 + AUTH_B64_BYTES(AUTH_HASH_BYTES_MAX) <=
                   AUTH_SCRAM_MESSAGE_BYTES_MAX,
               "the longest valid client-final message is accepted");
/* server-first: "r=" nonce ",s=" salt ",i=" iterations. */
_Static_assert(2 + AUTH_SCRAM_CLIENT_NONCE_BYTES_MAX + AUTH_SCRAM_SERVER_NONCE_BYTES_MAX + 3 +
                       AUTH_B64_BYTES(AUTH_SALT_BYTES_MAX) + 3 + 5 <=
                   AUTH_SASL_REPLY_BYTES_MAX,
               "the longest server-first message fits a reply");
_Static_assert(AUTH_SCRAM_ITERATIONS_MAX <= 99999, "iterations take at most 5 digits");

/* ---- TLS (src/tls) */
/* Largest TLS record on the wire: a 5-byte header and at most 2^14 bytes of
 * plaintext plus 2048 of expansion (RFC 5246 6.2.3; TLS 1.3 allows 256). */
#define KQ_TLS_RECORD_BYTES_MAX (5u + (16u << 10) + 2048u)
/* Per connection, ciphertext fed from the socket and not yet decrypted by
 * kq_tls_conn_read: kq_tls_conn_feed takes no more (the caller stops
 * reading the socket until plaintext is pulled). */
#define KQ_TLS_CONN_CIPHER_IN_BYTES_MAX (128u << 10)
/* Per connection, ciphertext produced and not yet taken for the socket:
 * kq_tls_conn_write accepts no more plaintext past it. */
#define KQ_TLS_CONN_CIPHER_OUT_BYTES_MAX (256u << 10)
/* Plaintext encrypted per SSL_write (one record's worth). */
#define KQ_TLS_WRITE_CHUNK_BYTES (16u << 10)
/* A peer's certificate chain as OpenSSL buffers it during the handshake. */
#define KQ_TLS_PEER_CERT_CHAIN_BYTES_MAX (64u << 10)
/* For the caller: a handshake not done after this is abandoned, and at most
 * this many connections are in their handshake at once (more wait or are
 * refused): each costs CPU for asymmetric crypto before it authenticates. */
#define KQ_TLS_HANDSHAKE_TIMEOUT_MS 10000
#define KQ_TLS_HANDSHAKES_MAX 64
/* Key and trust store files (PEM or PKCS#12) larger than this are refused. */
#define KQ_TLS_STORE_FILE_BYTES_MAX (1u << 20)
/* A connection's or a context's error text, OpenSSL's reasons included. */
#define KQ_TLS_ERROR_BYTES 512
/* Peer identity: the subject DN (RFC 2253), SAN DNS names kept, each name. */
#define KQ_TLS_DN_BYTES_MAX 1024
#define KQ_TLS_SAN_DNS_MAX 32
#define KQ_TLS_DNS_NAME_BYTES_MAX 256
/* ssl.principal.mapping.rules: rules in the list, length of the list. */
#define KQ_TLS_PRINCIPAL_RULES_MAX 64
#define KQ_TLS_PRINCIPAL_RULES_BYTES_MAX 8192
/* ssl.cipher.suites: one joined OpenSSL cipher string. */
#define KQ_TLS_CIPHER_LIST_BYTES_MAX 4096

_Static_assert(KQ_TLS_CONN_CIPHER_IN_BYTES_MAX >= 2 * KQ_TLS_RECORD_BYTES_MAX,
               "a whole record always fits the input buffer beside a partial one");
_Static_assert(KQ_TLS_CONN_CIPHER_OUT_BYTES_MAX >= 2 * KQ_TLS_RECORD_BYTES_MAX,
               "a write chunk's record fits the output buffer below the threshold");
_Static_assert(KQ_TLS_WRITE_CHUNK_BYTES <= (16u << 10),
               "a write chunk is at most one record of plaintext");
_Static_assert(KQ_TLS_CONN_CIPHER_IN_BYTES_MAX >= KQ_NET_READ_CHUNK_BYTES,
               "one socket read step fits an empty input buffer");
_Static_assert(KQ_TLS_DNS_NAME_BYTES_MAX > 253, "a DNS name (253 characters) and its NUL fit");
_Static_assert(KQ_CONFIG_SSL_TEXT_BYTES_MAX >= 2 * CFG_LINE_MAX,
               "two in-line PEM values of the longest line fit");
_Static_assert(KQ_CONFIG_SSL_ENTRIES_MAX >= 16 * (1 + 4),
               "every ssl key, plain and for four listeners");
_Static_assert(KQ_CONFIG_PRINCIPAL_BYTES_MAX <= 5 + KQ_TLS_DN_BYTES_MAX,
               "a configured principal can match one mapped from any subject");
_Static_assert(KQ_TLS_PRINCIPAL_RULES_BYTES_MAX <= CFG_LINE_MAX,
               "a rules list fits one properties line");

/* ---- metrics (src/metrics, src/net/metrics_http.c; docs/metrics.md) */
/* Buckets of one histogram (its upper bounds, +Inf not counted). */
#define KQ_METRICS_BUCKETS_MAX 24
/* Samples of a windowed rate/avg/max and the length of each (Kafka's
 * metrics.num.samples and metrics.sample.window.ms defaults). */
#define KQ_METRICS_WINDOW_SAMPLES 2
#define KQ_METRICS_WINDOW_MS 30000
/* Request latency is kept per API key below this (larger keys: not kept). */
#define KQ_METRICS_API_KEYS_MAX 128
/* Leader appends remembered until the high watermark covers them (commit
 * latency); while full, further appends are not sampled. */
#define KQ_METRICS_COMMIT_PENDING_MAX 4096
/* One label's name and value, as exposed. */
#define KQ_METRICS_LABEL_BYTES_MAX 128
/* The metrics HTTP server: connections at once (more are closed at
 * accept), one request's line and headers, the idle time after which a
 * connection is closed, and the largest body rendered (one scrape). */
#define KQ_METRICS_HTTP_CONNS_MAX 16
#define KQ_METRICS_HTTP_REQUEST_BYTES_MAX 4096
#define KQ_METRICS_HTTP_IDLE_MS 5000
#define KQ_METRICS_HTTP_METHOD_BYTES_MAX 16
#define KQ_METRICS_RESPONSE_BYTES_MAX (512u << 10)

_Static_assert(KQ_METRICS_WINDOW_SAMPLES >= 2, "a window keeps the previous sample");
_Static_assert(KQ_METRICS_API_KEYS_MAX <= 0x7fff, "API keys are int16");
_Static_assert(KQ_METRICS_HTTP_METHOD_BYTES_MAX < KQ_METRICS_HTTP_REQUEST_BYTES_MAX,
               "a method fits a request");
_Static_assert((uint64_t)KQ_METRICS_HTTP_CONNS_MAX *
                       (KQ_METRICS_HTTP_REQUEST_BYTES_MAX + KQ_METRICS_RESPONSE_BYTES_MAX) <=
                   (16u << 20),
               "every metrics connection at its bounds holds at most 16 MiB");
_Static_assert((uint64_t)KQ_METRICS_API_KEYS_MAX * (KQ_METRICS_BUCKETS_MAX + 4) * 70 +
                       (64u << 10) <=
                   KQ_METRICS_RESPONSE_BYTES_MAX,
               "every API's latency histogram fits one scrape beside the other metrics");

/* ---- snapshots (src/snapshot, include/kq/snapshot_state.h) */
/* One batch of a snapshot file: records are packed up to this size. */
#define KQ_SNAPSHOT_BATCH_BYTES_MAX (1u << 20)
/* Node prefixes whose largest producer id a snapshot records. */
#define KQ_SNAPSHOT_PID_NODES_MAX 64
/* Upper bound of one snapshot data record (framing, key and value): the
 * largest is a "kq.group-offset" with the longest metadata (asserted with
 * the group limits below). */
#define KQ_SNAPSHOT_RECORD_BYTES_MAX 8192

_Static_assert(KQ_SNAPSHOT_BATCH_BYTES_MAX <= RECORD_BATCH_BYTES_MAX,
               "a snapshot batch is a record batch");
_Static_assert(KQ_SNAPSHOT_RECORD_BYTES_MAX >= 32 + 4 + 4 * RAFT_VOTERS_MAX &&
                   KQ_SNAPSHOT_RECORD_BYTES_MAX >= 32 + 16 + 24 * 5,
               "the voters and a producer record (5 cached batches) fit the record bound");
_Static_assert(61 + KQ_SNAPSHOT_RECORD_BYTES_MAX <= KQ_SNAPSHOT_BATCH_BYTES_MAX,
               "a batch header and the largest record fit one snapshot batch");
_Static_assert(KQ_SNAPSHOT_PID_NODES_MAX >= RAFT_VOTERS_MAX + RAFT_OBSERVERS_MAX,
               "every voter's and observer's producer-id prefix fits");

/* ---- consumer groups (src/group, the classic group protocol) */
/* group.max.size: members (with members given an id by MEMBER_ID_REQUIRED
 * but not yet joined) per group. Kafka's default is Integer.MAX_VALUE; ours
 * is finite so that one group's memory is bounded (GROUP_MAX_SIZE_REACHED). */
#define KQ_GROUP_MAX_SIZE_DEFAULT 1000
/* group.min.session.timeout.ms / group.max.session.timeout.ms (Kafka's
 * defaults): a JoinGroup's session timeout outside them is answered
 * INVALID_SESSION_TIMEOUT. */
#define KQ_GROUP_MIN_SESSION_TIMEOUT_MS_DEFAULT 6000
#define KQ_GROUP_MAX_SESSION_TIMEOUT_MS_DEFAULT 1800000
/* group.initial.rebalance.delay.ms (Kafka's default): the first rebalance
 * of an Empty group waits this long for more members. */
#define KQ_GROUP_INITIAL_REBALANCE_DELAY_MS_DEFAULT 3000
/* Groups one coordinator holds (no Kafka key; Kafka is unbounded). A JoinGroup
 * that would create one more is answered COORDINATOR_NOT_AVAILABLE. */
#define KQ_GROUPS_MAX 4096
/* Bytes of one member's protocol metadata (all protocols together) and of
 * its assignment (no Kafka key; Kafka bounds them only by the record size of
 * its group metadata). Larger: INVALID_REQUEST. */
#define KQ_GROUP_MEMBER_BYTES_MAX (1u << 20)
/* Protocols one JoinGroup may name. More: INVALID_REQUEST. */
#define KQ_GROUP_PROTOCOLS_MAX 32
/* Bytes (with the NUL) of a group id, member id, group.instance.id, client
 * id, client host, protocol type or protocol name. Longer: INVALID_REQUEST
 * (a member id is built as client id + "-" + 32 hex digits, so the client id
 * is cut to fit). */
#define KQ_GROUP_NAME_BYTES_MAX 256
/* Answers one coordinator step may return: every member of a group answered
 * twice (a join completing and the syncs it ends), plus the request's own. */
#define KQ_GROUP_ANSWERS_MAX (2 * KQ_GROUP_MAX_SIZE_DEFAULT + 2)

/* Bytes (with the NUL) of a topic name in a group's committed offsets
 * (Kafka's topic names are at most 249 characters). */
#define KQ_TOPIC_NAME_BYTES_MAX 250
/* offset.metadata.max.bytes (Kafka's default): an OffsetCommit partition
 * whose metadata is longer is answered OFFSET_METADATA_TOO_LARGE. */
#define KQ_GROUP_OFFSET_METADATA_BYTES_MAX 4096
/* Upper bound of one encoded committed offset (include/kq/group_offset_codec.h:
 * version, three int16-length strings, partition, offset, epoch, timestamp). */
#define KQ_GROUP_OFFSET_VALUE_BYTES_MAX                                              \
    (2 + 3 * 2 + KQ_GROUP_NAME_BYTES_MAX + KQ_TOPIC_NAME_BYTES_MAX +                 \
     KQ_GROUP_OFFSET_METADATA_BYTES_MAX + 4 + 8 + 4 + 8)
/* Committed offsets (distinct group, topic, partition) the leader accepts
 * (no Kafka key; Kafka is unbounded). A commit that would add a key beyond
 * it is answered INVALID_COMMIT_OFFSET_SIZE. Pending commits above the
 * high watermark may take the table past it by what is in flight. */
#define KQ_GROUP_OFFSETS_MAX 100000
/* Partitions one OffsetCommit may name (it is one control batch; no Kafka
 * key). More: every partition is answered INVALID_COMMIT_OFFSET_SIZE. */
#define KQ_GROUP_COMMIT_PARTITIONS_MAX 1024
/* JoinGroup and SyncGroup requests waiting for the coordinator (all
 * groups). Beyond it a JoinGroup or SyncGroup is answered
 * COORDINATOR_NOT_AVAILABLE at once (retriable). */
#define HANDLER_GROUP_PENDING_MAX 4096
/* An appended OffsetCommit not committed within this is answered
 * COORDINATOR_NOT_AVAILABLE (Kafka's offsets.commit.timeout.ms and its
 * answer to a timed-out offsets append). */
#define HANDLER_GROUP_COMMIT_TIMEOUT_MS 5000
/* Bytes of encoded JoinGroup, SyncGroup and LeaveGroup answers held until
 * the membership change they reveal commits (issue 24; at most
 * HANDLER_GROUP_PENDING_MAX answers). Past it: COORDINATOR_NOT_AVAILABLE. */
#define HANDLER_GROUP_HELD_BYTES_MAX (64u << 20)
/* DeleteGroups / OffsetDelete requests whose tombstones wait to commit
 * (issue 24; each answered within HANDLER_GROUP_COMMIT_TIMEOUT_MS). Beyond
 * it a new one is answered COORDINATOR_NOT_AVAILABLE (retriable) before
 * anything is deleted. A power of two. */
#define HANDLER_GROUP_ADMIN_PENDING_MAX 64
_Static_assert((HANDLER_GROUP_ADMIN_PENDING_MAX & (HANDLER_GROUP_ADMIN_PENDING_MAX - 1)) == 0,
               "the admin queue's capacity is a power of two");
/* Groups one DeleteGroups names, partitions one OffsetDelete names: more
 * (a request no tool sends: every group that can hold an offset, at most)
 * closes the connection, so that the answer kept while its tombstones
 * commit stays within a few MiB. */
#define HANDLER_GROUP_ADMIN_ENTRIES_MAX 100000
_Static_assert(HANDLER_GROUP_ADMIN_ENTRIES_MAX >= KQ_GROUPS_MAX &&
                   HANDLER_GROUP_ADMIN_ENTRIES_MAX >= KQ_GROUP_COMMIT_PARTITIONS_MAX,
               "one DeleteGroups may name every group the coordinator holds");

_Static_assert(KQ_GROUP_MIN_SESSION_TIMEOUT_MS_DEFAULT <= KQ_GROUP_MAX_SESSION_TIMEOUT_MS_DEFAULT,
               "group.min.session.timeout.ms <= group.max.session.timeout.ms");
_Static_assert(KQ_GROUP_NAME_BYTES_MAX > 33 + 1, "a member id holds the 33 bytes after the client id");
_Static_assert(KQ_GROUP_ANSWERS_MAX >= 2 * KQ_GROUP_MAX_SIZE_DEFAULT + 1,
               "a step ending one group's join and syncs fits in one output");
_Static_assert((uint64_t)KQ_GROUP_MAX_SIZE_DEFAULT * KQ_GROUP_MEMBER_BYTES_MAX * 2 <= (8ull << 30),
               "one full group holds at most 8 GiB of metadata and assignments");
_Static_assert(KQ_SNAPSHOT_RECORD_BYTES_MAX >= 32 + 16 + KQ_GROUP_OFFSET_VALUE_BYTES_MAX,
               "a kq.group-offset snapshot record fits the record bound");
_Static_assert(KQ_SNAPSHOT_RECORD_BYTES_MAX >= 32 + 16 + 8 + KQ_GROUP_OFFSET_VALUE_BYTES_MAX,
               "a kq.txn-offset snapshot record (producer id added) fits the record bound");
_Static_assert(KQ_GROUP_OFFSET_METADATA_BYTES_MAX <= INT16_MAX,
               "metadata fits an int16-length string");
_Static_assert((uint64_t)KQ_GROUP_OFFSETS_MAX *
                       (KQ_GROUP_NAME_BYTES_MAX + KQ_TOPIC_NAME_BYTES_MAX +
                        KQ_GROUP_OFFSET_METADATA_BYTES_MAX + 64) <= (1ull << 30),
               "a full offsets table holds at most 1 GiB");
_Static_assert((uint64_t)KQ_GROUP_COMMIT_PARTITIONS_MAX *
                       (KQ_GROUP_NAME_BYTES_MAX + KQ_TOPIC_NAME_BYTES_MAX +
                        KQ_GROUP_OFFSET_METADATA_BYTES_MAX + 64) <= RECORD_BATCH_BYTES_MAX,
               "one OffsetCommit's control batch fits one batch");


/* ---- snapshots of any admitted state (issue 19 item 9) */
/* Bytes one committed offset costs in a snapshot, besides its group id,
 * topic and metadata: the record's framing (at most 16 bytes, src/snapshot/
 * encode.c), its key "kq.group-offset" (15) and the value's fixed fields
 * (version, three string lengths, partition, offset, epoch, timestamp: 32);
 * issue 24: or "kq.group-offset-end" (19) and its answer (8) after them. */
#define KQ_GROUP_OFFSET_ENTRY_FIXED_BYTES 80u
/* The "kq.offset-run" record (issue 24): framing 16, key 13, value 10. */
#define KQ_SNAPSHOT_OFFSET_RUN_BYTES 48u
/* Budget of the offsets table at the log end (committed entries and pending
 * commits together, each at KQ_GROUP_OFFSET_ENTRY_FIXED_BYTES plus its
 * strings' lengths): a commit that would pass it is answered
 * INVALID_COMMIT_OFFSET_SIZE (no Kafka key; Kafka is unbounded). It is what
 * keeps every admitted table inside one snapshot. */
#define KQ_GROUP_OFFSETS_BYTES_MAX (40u << 20) /* 48 before issue 24: room for the group store */
/* Bytes a stashed transactional offset commit (issue 23, "kq.txn-offset")
 * costs in a snapshot over a committed one: its producer id (8); its key
 * (13 bytes) is shorter than "kq.group-offset". Stashed commits count in
 * KQ_GROUP_OFFSETS_BYTES_MAX like pending ones. */
#define KQ_TXN_OFFSET_EXTRA_BYTES 8u
/* One "kq.producer" record at most: framing 16, key "kq.producer" (11),
 * value: version, pid, epoch, count and KQ_SNAPSHOT_PRODUCER_BATCHES cached
 * batches of 24 bytes (asserted equal to PRODUCER_STATE_BATCHES). */
#define KQ_SNAPSHOT_PRODUCER_BATCHES 5
#define KQ_SNAPSHOT_PRODUCER_RECORD_BYTES_MAX (16u + 11u + 16u + 24u * KQ_SNAPSHOT_PRODUCER_BATCHES)
/* Header and footer batches, the voters and producer-id maxima records. */
#define KQ_SNAPSHOT_FIXED_BYTES_MAX \
    (2u * 128u + 2u * KQ_SNAPSHOT_RECORD_BYTES_MAX + KQ_SNAPSHOT_OFFSET_RUN_BYTES)
/* A batch is flushed only when the next record would not fit, so every
 * batch but the last holds more than half of KQ_SNAPSHOT_BATCH_BYTES_MAX:
 * at most this many batch headers (61 bytes each) in a snapshot file. */
#define KQ_SNAPSHOT_BATCHES_MAX (2u * (KQ_SNAPSHOT_BYTES_MAX / KQ_SNAPSHOT_BATCH_BYTES_MAX) + 2u)
/* Snapshot attempts that failed (encode or write) are retried after a
 * backoff doubling from the first to the last figure. */
#define EXEC_SNAPSHOT_RETRY_MS_MIN 1000
#define EXEC_SNAPSHOT_RETRY_MS_MAX 60000
/* A failed snapshot is logged at most once per this (with a count of the
 * failures not logged). */
#define EXEC_SNAPSHOT_FAILURE_LOG_MS 10000

_Static_assert(KQ_GROUP_OFFSET_ENTRY_FIXED_BYTES >= 16 + 15 + 32 &&
                   KQ_GROUP_OFFSET_ENTRY_FIXED_BYTES >= 16 + 19 + 32 + 8,
               "an entry's fixed cost covers its framing, key and fixed value fields, "
               "as kq.group-offset or kq.group-offset-end");
_Static_assert(KQ_GROUP_OFFSET_ENTRY_FIXED_BYTES + KQ_TXN_OFFSET_EXTRA_BYTES >= 16 + 13 + 8 + 32,
               "a stashed commit's cost covers its framing, key, producer id and fixed fields");
_Static_assert(2 * KQ_SNAPSHOT_RECORD_BYTES_MAX <= KQ_SNAPSHOT_BATCH_BYTES_MAX,
               "a flushed batch is more than half full");
/* The whole admitted state fits KQ_SNAPSHOT_BYTES_MAX: asserted after the
 * transaction limits (issue 23), below. */
_Static_assert((uint64_t)KQ_GROUP_OFFSETS_MAX * KQ_GROUP_OFFSET_ENTRY_FIXED_BYTES <=
                   KQ_GROUP_OFFSETS_BYTES_MAX,
               "the entry count limit is reachable with short names");
_Static_assert(EXEC_SNAPSHOT_RETRY_MS_MIN <= EXEC_SNAPSHOT_RETRY_MS_MAX, "the backoff grows");
/* ---- issue 19 (store): startup checks and log scans off the loop */
/* Snapshot files storage lists at open to vouch for the log start
 * (SnapshotAtLogStart); the executor keeps at most EXEC_SNAPSHOTS_MAX. */
#define STORAGE_START_SNAPSHOTS_LISTED_MAX 64
_Static_assert(STORAGE_START_SNAPSHOTS_LISTED_MAX >= EXEC_SNAPSHOTS_MAX,
               "storage sees every snapshot the executor keeps");
/* ---- connections and descriptors (issue 19 items 2, 7, 8; src/net/conn_limits.c,
 * include/kq/conn_limits.h, docs/hostile-clients.md "Connections and descriptors") */
/* Descriptors no client connection can take: the log's segments and
 * directory, snapshots being written or sent, the peers' channels, the
 * metrics endpoint, libuv's own (loop, signals, thread pool) and one being
 * accepted to be refused. max.connections defaults to RLIMIT_NOFILE minus
 * this and the controller listeners' slots, and is cut to that if set
 * higher. */
#define KQ_FD_RESERVE 256
/* Connections on the controller listeners (controller.listener.names)
 * together, counted apart from every client listener's: client floods
 * cannot take them. Per address at most KQ_CONTROLLER_CONNECTIONS_PER_IP_MAX
 * (a voter opens one channel to each peer; tools ask DescribeQuorum). */
#define KQ_CONTROLLER_CONNECTIONS_MAX 128
#define KQ_CONTROLLER_CONNECTIONS_PER_IP_MAX 32
/* Connections of a shared listener (no controller.listener.names) promoted
 * to the quorum's class at once, in sum over the node's listeners (issue 19):
 * as many as a controller listener may hold, so that a client forging
 * quorum requests (with the seed's PLAINTEXT trust) cannot make every
 * connection non-evictable and quorum-class; past it a connection stays a
 * client's. */
#define KQ_PROMOTED_CONNECTIONS_MAX KQ_CONTROLLER_CONNECTIONS_MAX
/* A node whose RLIMIT_NOFILE (after raising the soft limit to the hard one)
 * leaves fewer client connections than this refuses to start. */
#define KQ_CLIENT_CONNECTIONS_MIN 16
/* max.connections and max.connections.per.ip cannot be set above this. */
#define KQ_MAX_CONNECTIONS_LIMIT (1u << 24)
/* max.connections.per.ip.overrides: entries. */
#define KQ_CONN_IP_OVERRIDES_MAX 64
/* After accept failed with EMFILE or ENFILE, a listener takes no connection
 * for this long (libuv has already closed what was waiting). */
#define KQ_ACCEPT_BACKOFF_MS 200
/* TLS handshakes in progress from one address (exact IPv4 or IPv6 address),
 * per listener; beyond it a connection from that address is closed at
 * accept, so one flooding address cannot hold KQ_TLS_HANDSHAKES_MAX. */
#define KQ_TLS_HANDSHAKES_PER_IP_MAX 8
/* Metrics endpoint connections from one address; a new one past this, or
 * with every slot taken, replaces the oldest connection still reading its
 * request (from that address first). The request head must be complete
 * within KQ_METRICS_HTTP_HEADER_MS of accept. */
#define KQ_METRICS_HTTP_CONNS_PER_IP_MAX 4
#define KQ_METRICS_HTTP_HEADER_MS 2000
/* The endpoint's listen backlog, and slots beyond KQ_METRICS_HTTP_CONNS_MAX
 * for connections closed to make room and not yet released by libuv (one
 * loop turn accepts up to a backlog's worth, each closing one before it; a
 * flood past them is refused). */
#define KQ_METRICS_HTTP_BACKLOG 64
#define KQ_METRICS_HTTP_CLOSING_SLOTS (2 * KQ_METRICS_HTTP_BACKLOG)
/* Client-caused log lines (LOG_LINE_LIMITED, kq/log_line.h): per call site
 * at most this many lines per window; the rest are counted and the count
 * is printed with the next line let through. */
#define KQ_LOG_LIMITED_LINES_PER_WINDOW 10
#define KQ_LOG_LIMITED_WINDOW_MS 1000

_Static_assert(KQ_FD_RESERVE >= KQ_METRICS_HTTP_CONNS_MAX + 2 * KQ_CONFIG_VOTERS_MAX + 64,
               "the reserve holds the metrics connections, the peers' channels and storage");
_Static_assert(KQ_CONTROLLER_CONNECTIONS_PER_IP_MAX <= KQ_CONTROLLER_CONNECTIONS_MAX,
               "one address cannot take more than every controller slot");
_Static_assert(KQ_CONTROLLER_CONNECTIONS_MAX >= 4 * KQ_CONFIG_VOTERS_MAX,
               "every voter's channels fit the controller slots with room for tools");
_Static_assert(KQ_TLS_HANDSHAKES_PER_IP_MAX < KQ_TLS_HANDSHAKES_MAX,
               "one address leaves TLS handshakes for others");
_Static_assert(KQ_METRICS_HTTP_CONNS_PER_IP_MAX < KQ_METRICS_HTTP_CONNS_MAX,
               "one address leaves metrics slots for others");
/* An answer lives from its request to the end of its write (a connection
 * closed for room drops it at once): live connections, plus as many being
 * closed mid-write. */
_Static_assert((uint64_t)(KQ_METRICS_HTTP_CONNS_MAX + KQ_METRICS_HTTP_CLOSING_SLOTS) *
                       KQ_METRICS_HTTP_REQUEST_BYTES_MAX +
                   2ull * KQ_METRICS_HTTP_CONNS_MAX * KQ_METRICS_RESPONSE_BYTES_MAX <=
                   (24u << 20),
               "every metrics slot, closing ones too, at its bounds holds at most 24 MiB");
_Static_assert(KQ_METRICS_HTTP_HEADER_MS <= KQ_METRICS_HTTP_IDLE_MS,
               "the header deadline is the tighter one");
_Static_assert(KQ_CLIENT_CONNECTIONS_MIN <= KQ_MAX_CONNECTIONS_LIMIT, "a minimum below the limit");
_Static_assert(KQ_LOG_LIMITED_LINES_PER_WINDOW >= 1, "a limited site still logs");
/* ---- Group state bounded in bytes and in time (issue 19, items 5 and 6) ---- */
/* Member metadata (every protocol) and assignments held for one group, and
 * for all groups. A JoinGroup or SyncGroup that would pass the group's budget
 * is answered GROUP_MAX_SIZE_REACHED, one past the total
 * COORDINATOR_NOT_AVAILABLE (retriable: room frees as members leave). */
#define KQ_GROUP_BYTES_MAX (16u << 20)
#define KQ_GROUPS_BYTES_MAX (256u << 20)
/* Members and pending member ids (MEMBER_ID_REQUIRED) one connection (its
 * client host, "address:port") may hold in all groups: one client cannot
 * take every group slot. Past it: GROUP_MAX_SIZE_REACHED. */
#define KQ_GROUP_MEMBERS_PER_CONNECTION_MAX 64
/* Kafka's offsets.retention.minutes and offsets.retention.check.interval.ms
 * (KIP-211): a committed offset of a group without members expires this long
 * after its commit (or after the group became Empty, when later). */
#define KQ_OFFSETS_RETENTION_MINUTES_DEFAULT 10080
#define KQ_OFFSETS_RETENTION_CHECK_INTERVAL_MS_DEFAULT 600000
/* A group limit hit is logged at most once per this (with a count of the
 * lines left out). */
#define KQ_GROUP_LIMIT_LOG_INTERVAL_MS 10000

_Static_assert(2ull * KQ_GROUP_MEMBER_BYTES_MAX <= KQ_GROUP_BYTES_MAX,
               "one member's largest metadata and assignment fit a group's budget");
_Static_assert(KQ_GROUP_BYTES_MAX <= KQ_GROUPS_BYTES_MAX, "a group's budget fits the total");
_Static_assert(KQ_GROUP_MEMBERS_PER_CONNECTION_MAX < KQ_GROUPS_MAX &&
                   KQ_GROUP_MEMBERS_PER_CONNECTION_MAX < HANDLER_GROUP_PENDING_MAX,
               "one connection cannot take every group nor every waiting join");
/* ---- KIP-848 consumer groups (kq/group_consumer.h) */
/* group.consumer.session.timeout.ms and its min/max keys (Kafka's
 * defaults): a member without a heartbeat for this long is removed. */
#define KQ_GROUP_CONSUMER_SESSION_TIMEOUT_MS_DEFAULT 45000
#define KQ_GROUP_CONSUMER_MIN_SESSION_TIMEOUT_MS_DEFAULT 45000
#define KQ_GROUP_CONSUMER_MAX_SESSION_TIMEOUT_MS_DEFAULT 60000
/* group.consumer.heartbeat.interval.ms and its min/max keys (Kafka's). */
#define KQ_GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS_DEFAULT 5000
#define KQ_GROUP_CONSUMER_MIN_HEARTBEAT_INTERVAL_MS_DEFAULT 5000
#define KQ_GROUP_CONSUMER_MAX_HEARTBEAT_INTERVAL_MS_DEFAULT 15000
/* group.consumer.max.size: members of one consumer group (classic members
 * of it included). Kafka's default is Integer.MAX_VALUE; ours is finite, as
 * group.max.size, and the key may not exceed it. Past it:
 * GROUP_MAX_SIZE_REACHED. */
#define KQ_GROUP_CONSUMER_MAX_SIZE_DEFAULT 1000
/* Topics and partitions (all topics together) the assignors see
 * (group_consumer_set_topics; no Kafka key; the server has one topic of
 * one partition). A group's assignments hold each partition about three
 * times (target, assigned, pending revocation), so this bounds every
 * consumer group's assignment memory, and one member's persisted record. */
#define KQ_GROUP_CONSUMER_TOPICS_MAX 16
#define KQ_GROUP_CONSUMER_PARTITIONS_MAX 256
/* Subscribed topic names in one heartbeat or one member, their bytes (each
 * name's length + 2) and owned partitions in one heartbeat (no Kafka key).
 * More: INVALID_REQUEST. */
#define KQ_GROUP_CONSUMER_SUBSCRIBED_TOPICS_MAX 64
/* A ConsumerGroupHeartbeat's SubscribedTopicRegex (issue 24): at most this
 * long, and without counted repetition ({n,m}), which glibc's regcomp
 * expands into states (nested, a client could make it take seconds and
 * megabytes on the event loop); beyond either: INVALID_REQUEST. */
#define KQ_GROUP_CONSUMER_REGEX_BYTES_MAX 255
#define KQ_GROUP_CONSUMER_SUBSCRIPTION_BYTES_MAX 768
#define KQ_GROUP_CONSUMER_OWNED_PARTITIONS_MAX KQ_GROUP_CONSUMER_PARTITIONS_MAX
/* Bytes of a classic member's protocols (each name's length + 2, each
 * metadata's length + 4) when it is a member of a consumer group (KIP-848
 * migration; Kafka keeps them in the member's record too). More:
 * INVALID_REQUEST. */
#define KQ_GROUP_CONSUMER_CLASSIC_PROTOCOLS_BYTES_MAX 1024
/* The most bytes of one consumer group member's persisted body
 * (consumer_codec.c): fixed fields, five strings, the subscription, three
 * partition sets (every topic, every partition) and the classic protocols. */
#define KQ_GROUP_CONSUMER_SET_BYTES_MAX                                               \
    (2 + KQ_GROUP_CONSUMER_TOPICS_MAX * (16 + 2) + 4 * KQ_GROUP_CONSUMER_PARTITIONS_MAX)
#define KQ_GROUP_CONSUMER_MEMBER_BODY_BYTES_MAX                                       \
    (64 + 5 * (2 + KQ_GROUP_NAME_BYTES_MAX) + 2 + KQ_GROUP_CONSUMER_SUBSCRIPTION_BYTES_MAX + \
     3 * KQ_GROUP_CONSUMER_SET_BYTES_MAX + 2 + KQ_GROUP_CONSUMER_CLASSIC_PROTOCOLS_BYTES_MAX)
/* Bytes one member costs in its group's budget besides its strings and
 * partitions (KQ_GROUP_BYTES_MAX), and bytes per partition held in one of
 * its assignment sets (with its view). */
#define KQ_GROUP_CONSUMER_MEMBER_FIXED_BYTES 256u
#define KQ_GROUP_CONSUMER_PARTITION_BYTES 48u

_Static_assert(KQ_GROUP_CONSUMER_MIN_SESSION_TIMEOUT_MS_DEFAULT <=
                       KQ_GROUP_CONSUMER_SESSION_TIMEOUT_MS_DEFAULT &&
                   KQ_GROUP_CONSUMER_SESSION_TIMEOUT_MS_DEFAULT <=
                       KQ_GROUP_CONSUMER_MAX_SESSION_TIMEOUT_MS_DEFAULT,
               "the default session timeout lies within its bounds");
_Static_assert(KQ_GROUP_CONSUMER_MIN_HEARTBEAT_INTERVAL_MS_DEFAULT <=
                       KQ_GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS_DEFAULT &&
                   KQ_GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS_DEFAULT <=
                       KQ_GROUP_CONSUMER_MAX_HEARTBEAT_INTERVAL_MS_DEFAULT,
               "the default heartbeat interval lies within its bounds");
_Static_assert(KQ_GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS_DEFAULT <
                   KQ_GROUP_CONSUMER_SESSION_TIMEOUT_MS_DEFAULT,
               "Kafka: the heartbeat interval is less than the session timeout");
_Static_assert(KQ_GROUP_CONSUMER_MAX_SIZE_DEFAULT <= KQ_GROUP_MAX_SIZE_DEFAULT,
               "a consumer group's classic members are answered within KQ_GROUP_ANSWERS_MAX");
_Static_assert(KQ_GROUP_CONSUMER_TOPICS_MAX <= KQ_GROUP_CONSUMER_PARTITIONS_MAX,
               "every topic has a partition");
_Static_assert((uint64_t)KQ_GROUP_CONSUMER_PARTITIONS_MAX * KQ_GROUP_CONSUMER_PARTITION_BYTES * 4 <=
                   KQ_GROUP_BYTES_MAX / 8,
               "a group's assignment sets of every partition take a small part of its budget");
_Static_assert((uint64_t)KQ_GROUPS_MAX * KQ_GROUP_CONSUMER_PARTITIONS_MAX *
                       KQ_GROUP_CONSUMER_PARTITION_BYTES * 4 <= (1ull << 30),
               "every group's assignments together stay bounded (also past the bytes budget)");
_Static_assert(KQ_GROUP_CONSUMER_SUBSCRIPTION_BYTES_MAX >= KQ_TOPIC_NAME_BYTES_MAX + 2,
               "a subscription may name the longest topic");
_Static_assert(KQ_GROUP_CONSUMER_MEMBER_BODY_BYTES_MAX + 1024 <= KQ_SNAPSHOT_RECORD_BYTES_MAX,
               "a consumer group member's persisted body and its framing fit one record");

/* ---- the response memory budget (issue 19 items 3-5; kq/budget.h, src/net) */
/* queued.max.response.bytes default (our key; Kafka has none, it mutes a
 * connection while a response is pending and sends log data with zero
 * copy): server-wide, every listener together, the bytes of responses
 * completed but not yet taken by the kernel, consumer Fetch data included.
 * Past it the connections holding the most stop being read, and a consumer
 * Fetch reads from the log only what is left (fewer bytes, never an error). */
#define KQ_QUEUED_RESPONSE_BYTES_DEFAULT (128u << 20)
/* The share of that budget no client connection can take: it is kept for
 * the quorum's own traffic on the controller listener (replica Fetch, Raft
 * RPCs, FetchSnapshot answers), 1/KQ_RESPONSE_QUORUM_SHARE_DIV of it. */
#define KQ_RESPONSE_QUORUM_SHARE_DIV 4
/* Kept free of Fetch data below the budget for the small answers of
 * requests already read (their size is not known before they are
 * handled): Fetch data is granted only below budget - headroom, and past
 * that point only light connections (holding less than
 * headroom / KQ_RESPONSE_LIGHT_CONN_DIV) are read, none at the limit. */
#define KQ_RESPONSE_HEADROOM_BYTES (1u << 20)
#define KQ_RESPONSE_LIGHT_CONN_DIV 16
/* sasl.server.max.receive.size default (Kafka's, 512 KiB): the largest frame
 * a connection on a SASL listener may send before it authenticated; a larger
 * size prefix closes the connection. */
#define KQ_SASL_RECEIVE_BYTES_DEFAULT (512u << 10)
/* Before a frame's bytes arrived, its read buffer is at most this much
 * larger than what the connection sent of it (it doubles as bytes arrive):
 * an announced size alone reserves no more than a read step. */
#define KQ_NET_READ_GROWTH_MIN_BYTES KQ_NET_READ_CHUNK_BYTES
/* 1/KQ_NET_FIRST_READ_SHARE_DIV of queued.max.request.bytes only serves a
 * connection's first read step: frames growing past it never take it, so a
 * fresh connection (an ApiVersions) is read while big frames fill the rest. */
#define KQ_NET_FIRST_READ_SHARE_DIV 8

_Static_assert(KQ_QUEUED_RESPONSE_BYTES_DEFAULT >=
                   (uint64_t)KQ_FETCH_RESPONSE_BYTES_MAX + KQ_RESPONSE_HEADROOM_BYTES +
                       KQ_QUEUED_RESPONSE_BYTES_DEFAULT / KQ_RESPONSE_QUORUM_SHARE_DIV,
               "the clients' share of the response budget holds one maximal Fetch answer");
_Static_assert(KQ_QUEUED_RESPONSE_BYTES_DEFAULT / KQ_RESPONSE_QUORUM_SHARE_DIV >=
                   (16u << 20) + KQ_RESPONSE_HEADROOM_BYTES,
               "the quorum's share holds a follower's fetch answers (fetch.max.bytes of the "
               "peers, 1 MiB by default) many times over");
_Static_assert(KQ_RESPONSE_QUORUM_SHARE_DIV >= 2, "clients keep at least half the budget");
_Static_assert(KQ_SASL_RECEIVE_BYTES_DEFAULT <= KQ_REQUEST_FRAME_BYTES_DEFAULT,
               "sasl.server.max.receive.size is below socket.request.max.bytes");
_Static_assert(KQ_NET_READ_GROWTH_MIN_BYTES >= KQ_NET_READ_CHUNK_BYTES,
               "a read step always fits");
/* ---- SASL handshakes and failed logins (issue 19 items 11, 13) */
/* Handshakes waiting for their SaslAuthenticate, in total and per client
 * address. A new handshake always gets a slot: past the address's share
 * its own oldest pending one is evicted, past the total the oldest of the
 * address holding most; an evicted or expired handshake fails (the
 * connection closes at its next frame), so a flood of handshakes that never
 * finish cannot lock out real logins. */
#define KQ_SASL_PENDING_MAX 1024
#define KQ_SASL_PENDING_PER_ADDRESS_MAX 32
#define KQ_SASL_HANDSHAKE_TIMEOUT_MS 10000   /* handshake to authenticated */
/* connection.failed.authentication.delay.ms (Kafka's key and default): a
 * failed login's answer (or close, after a v0 handshake) waits this long;
 * at most KQ_SASL_FAILED_DELAYED_MAX wait at once, beyond which they are
 * answered at once, so delayed connections cannot pile up. */
#define KQ_FAILED_AUTH_DELAY_MS_DEFAULT 100
#define KQ_FAILED_AUTH_DELAY_MS_MAX 60000
#define KQ_SASL_FAILED_DELAYED_MAX 256
#define KQ_SASL_ADDRESS_BYTES_MAX 64        /* "ip" of a peer address, NUL */

_Static_assert(KQ_SASL_PENDING_PER_ADDRESS_MAX < KQ_SASL_PENDING_MAX,
               "one address cannot hold every pending handshake");
_Static_assert(KQ_FAILED_AUTH_DELAY_MS_DEFAULT <= KQ_FAILED_AUTH_DELAY_MS_MAX,
               "the default delay is allowed");
_Static_assert(KQ_FAILED_AUTH_DELAY_MS_MAX < KQ_SASL_HANDSHAKE_TIMEOUT_MS * 10,
               "a delayed failure is answered long before idle connections close");
/* A log search job reads its segments in chunks of this many bytes (or
 * the largest batch, if larger). */
#define KQ_LOG_SEARCH_CHUNK_BYTES (1u << 20)
/* Distinct timestamps one ListOffsets request may search for; further
 * entries are answered INVALID_REQUEST (a real client asks one). */
#define HANDLER_TIME_SEARCH_TARGETS_MAX 16
/* ListOffsets requests parked for a search (all connections); beyond it
 * one is answered REQUEST_TIMED_OUT (retriable) at once. */
#define HANDLER_TIME_SEARCHES_PARKED_MAX 256
/* Searches running at once off the loop; the others wait in order. */
#define EXEC_TIME_SEARCHES_RUNNING_MAX 2
_Static_assert(EXEC_TIME_SEARCHES_RUNNING_MAX >= 1 &&
                   EXEC_TIME_SEARCHES_RUNNING_MAX <= HANDLER_TIME_SEARCHES_PARKED_MAX,
               "searches run, and no more than can be parked");
/* Threads of libuv's pool the daemon asks for at least: libuv's default 4
 * (a flush, a snapshot write, peer lookups) plus one per search out. */
#define KQ_UV_THREADPOOL_THREADS_MIN (4 + EXEC_TIME_SEARCHES_RUNNING_MAX)
_Static_assert(KQ_UV_THREADPOOL_THREADS_MIN <= 1024, "libuv caps its pool at 1024 threads");
_Static_assert(KQ_QUEUED_REQUEST_BYTES_DEFAULT / KQ_NET_FIRST_READ_SHARE_DIV >=
                   256u * KQ_NET_READ_CHUNK_BYTES,
               "by default 256 fresh connections are read while big frames hold the rest");

/* ---- Eviction when a client pool is full (issue 19 item 2; kq/conn_evict.h) */
/* Members of the heaviest address looked at for one that may be closed
 * (none handling a request or with a response pending), per accept. */
#define KQ_CONN_EVICT_PROBES_MAX 16
/* max.connections.per.ip defaults to this share of max.connections (in
 * quarters), so that one address never holds every slot. */
#define KQ_MAX_CONNECTIONS_PER_IP_DEFAULT_QUARTERS 3
_Static_assert(KQ_CONN_EVICT_PROBES_MAX >= 1, "eviction looks at one member at least");
_Static_assert(KQ_MAX_CONNECTIONS_PER_IP_DEFAULT_QUARTERS >= 1 &&
                   KQ_MAX_CONNECTIONS_PER_IP_DEFAULT_QUARTERS < 4,
               "the default per-address share leaves slots for other addresses");

/* ---- Streamed Fetch answers (issue 19: a consumer answer is sent from
 * the log as the socket drains, docs/configuration.md "How a Fetch answer is sent").
 * An answer whose log data is below KQ_FETCH_STREAM_INLINE_BYTES_MAX is
 * read and sent whole; a larger one is read in chunks of
 * KQ_FETCH_STREAM_CHUNK_BYTES (or the batch, if larger), at most
 * KQ_FETCH_STREAM_CHUNKS_IN_FLIGHT_MAX of a connection at once. */
#define KQ_FETCH_STREAM_INLINE_BYTES_MAX (16u << 10)
#define KQ_FETCH_STREAM_CHUNK_BYTES (64u << 10)
/* The chunk while the response budget has room for four of them past its
 * headroom (a batch up to this size is then read once). */
#define KQ_FETCH_STREAM_CHUNK_BYTES_MAX (1u << 20)
_Static_assert(KQ_FETCH_STREAM_CHUNK_BYTES <= KQ_FETCH_STREAM_CHUNK_BYTES_MAX,
               "the large chunk is at least the small one");
#define KQ_FETCH_STREAM_CHUNKS_IN_FLIGHT_MAX 2
_Static_assert(KQ_FETCH_STREAM_INLINE_BYTES_MAX <= KQ_FETCH_STREAM_CHUNK_BYTES,
               "a streamed answer is larger than an inline one");
_Static_assert(KQ_FETCH_STREAM_CHUNKS_IN_FLIGHT_MAX >= 1 &&
                   KQ_FETCH_STREAM_CHUNKS_IN_FLIGHT_MAX * 2 + 2 <= WRITE_BUFS_MAX,
               "a gathered write holds the chunks in flight and the frame between them");

/* ---- Frames per connection per loop turn (issue 19: a pipelining client
 * that never reads must not hold the loop). A connection dispatches at
 * most this many frames between two check phases of the loop; the rest
 * wait in its read buffer for the next turn, so one turn handles at most
 * this many requests per connection however deep the pipeline (Kafka mutes
 * a connection while a response is pending: one at a time). */
/* Requests in flight per connection before reading pauses (src/net). */
#define NET_SLOTS_PER_CONN 128
#define NET_FRAMES_PER_TURN_MAX 8
_Static_assert(NET_FRAMES_PER_TURN_MAX >= 1 && NET_FRAMES_PER_TURN_MAX <= NET_SLOTS_PER_CONN,
               "at least one frame per turn, at most a connection's slots (NET_SLOTS_PER_CONN)");
/* Client frames per loop turn, summed over every connection of every
 * client listener of the node (issue 19: the event loop's time reserved for
 * the quorum). Past it the client connections wait for the next turn,
 * oldest first; the controller listener's connections (the quorum's class)
 * are never held by it, so a voter's Fetch waits at most one turn of this
 * many client requests, however many clients pipeline. */
#define KQ_NET_CLIENT_FRAMES_PER_TURN_MAX 256
_Static_assert(KQ_NET_CLIENT_FRAMES_PER_TURN_MAX >= NET_FRAMES_PER_TURN_MAX,
               "one connection may use its whole share of a turn");
_Static_assert(KQ_NET_CLIENT_FRAMES_PER_TURN_MAX % NET_FRAMES_PER_TURN_MAX == 0,
               "a turn holds whole shares of connections");
_Static_assert(KQ_NET_CLIENT_FRAMES_PER_TURN_MAX <= 4096,
               "one turn of client requests stays short beside a voter's Fetch");


/* ---- transactions (issue 23; include/kq/txn.h, src/txn) */
/* Transactional ids the coordinator keeps (Kafka: unbounded): an
 * InitProducerId for a new one past it is answered COORDINATOR_NOT_AVAILABLE
 * (retriable: ids expire after transactional.id.expiration.ms). */
#define KQ_TXN_IDS_MAX 1024
/* A transactional id is shorter than this (Kafka: no bound): INVALID_REQUEST. */
#define KQ_TXN_ID_BYTES_MAX 256
/* Groups one transaction commits offsets for (AddOffsetsToTxn; Kafka: no
 * bound): one more is answered INVALID_REQUEST. */
#define KQ_TXN_GROUPS_MAX 8
/* Transactions open at once (Ongoing): one more is answered
 * CONCURRENT_TRANSACTIONS (retriable). */
#define KQ_TXN_OPEN_MAX 1024
/* Aborted transactions the index keeps for read_committed fetches (Kafka
 * keeps a .txnindex per segment): when full, a transaction that would start
 * is answered CONCURRENT_TRANSACTIONS until retention drops old ones. Room
 * for every open transaction to abort is kept. */
#define KQ_TXN_ABORTED_MAX 65536
/* Aborted entries per "kq.txn-aborted" snapshot record (24 bytes each). */
#define KQ_TXN_SNAPSHOT_ABORTED_PER_RECORD 256
/* Kafka's defaults: transaction.max.timeout.ms, transactional.id.expiration.ms,
 * transaction.abort.timed.out.transaction.cleanup.interval.ms. */
#define KQ_TXN_MAX_TIMEOUT_MS_DEFAULT 900000
#define KQ_TXN_ID_EXPIRATION_MS_DEFAULT 604800000
#define KQ_TXN_ABORT_CLEANUP_INTERVAL_MS_DEFAULT 10000
/* Transactional requests waiting for their records to commit. */
#define HANDLER_TXN_PENDING_MAX 4096
/* ... and their frame copies together (COORDINATOR_NOT_AVAILABLE past it). */
#define HANDLER_TXN_PENDING_BYTES_MAX (64u << 20)
/* Partitions one AddPartitionsToTxn names in all transactions (more: every
 * one is answered INVALID_REQUEST; Kafka has no such limit). */
#define KQ_TXN_ADD_PARTITIONS_MAX 1024
/* Aborted transactions one Fetch answer names at most (more: the answer
 * stops before the first transaction that does not fit). */
#define HANDLER_FETCH_ABORTED_MAX 4096
_Static_assert(KQ_TXN_OPEN_MAX < KQ_TXN_ABORTED_MAX, "room for every open transaction to abort");
_Static_assert(KQ_TXN_SNAPSHOT_ABORTED_PER_RECORD * 24 + 64 <= KQ_SNAPSHOT_RECORD_BYTES_MAX,
               "a kq.txn-aborted record fits one snapshot record");
_Static_assert(16 + 6 + 48 + KQ_TXN_ID_BYTES_MAX + KQ_TXN_GROUPS_MAX * (2 + KQ_GROUP_NAME_BYTES_MAX) <=
                   KQ_SNAPSHOT_RECORD_BYTES_MAX,
               "a kq.txn record fits one snapshot record");
/* What the transaction table costs in a snapshot (txn_table_bytes): a
 * "kq.txn" record is its framing (16), key (6) and fixed value fields
 * (version, id length, producer id, epoch, timeout, state, partition added,
 * two timestamps, group count: 38) plus the id and 2 + each group's
 * length; a "kq.txn-open" record framing 16, key 11, value 20; a
 * "kq.txn-aborted" record framing 16, key 14, version and count 4, then
 * 24 bytes per aborted transaction. */
#define KQ_TXN_ENTRY_FIXED_BYTES 64u
#define KQ_TXN_OPEN_RECORD_BYTES 48u
#define KQ_TXN_ABORTED_RECORD_FIXED_BYTES 40u
#define KQ_TXN_ABORTED_ENTRY_BYTES 24u
/* The table's cost when every limit is reached: KQ_TXN_IDS_MAX entries of
 * the longest id with KQ_TXN_GROUPS_MAX longest groups, KQ_TXN_OPEN_MAX
 * open and KQ_TXN_ABORTED_MAX aborted transactions (4.1 MB). */
#define KQ_TXN_SNAPSHOT_BYTES_MAX                                                                  \
    ((uint64_t)KQ_TXN_IDS_MAX *                                                                    \
         (KQ_TXN_ENTRY_FIXED_BYTES + KQ_TXN_ID_BYTES_MAX +                                         \
          KQ_TXN_GROUPS_MAX * (2u + KQ_GROUP_NAME_BYTES_MAX)) +                                    \
     (uint64_t)KQ_TXN_OPEN_MAX * KQ_TXN_OPEN_RECORD_BYTES +                                        \
     (uint64_t)KQ_TXN_ABORTED_MAX * KQ_TXN_ABORTED_ENTRY_BYTES +                                   \
     ((uint64_t)KQ_TXN_ABORTED_MAX / KQ_TXN_SNAPSHOT_ABORTED_PER_RECORD + 1u) *                    \
         KQ_TXN_ABORTED_RECORD_FIXED_BYTES)
_Static_assert(KQ_TXN_ENTRY_FIXED_BYTES >= 16 + 6 + 38 && KQ_TXN_OPEN_RECORD_BYTES >= 16 + 11 + 20 &&
                   KQ_TXN_ABORTED_RECORD_FIXED_BYTES >= 16 + 14 + 4,
               "the transaction records' fixed costs cover their framing, keys and fixed fields");
/* ---- group membership through the log (issue 24; kq/group_store.h) */
/* What one KQ_CONTROL_GROUP record costs in a snapshot besides its group
 * id, member id and body: framing (16), key "kq.group-member" (15), the
 * value's fixed fields (version, kind, two string lengths, type, body
 * length: 12). */
#define KQ_GROUP_STORE_RECORD_FIXED_BYTES 48u
/* A record's body (a classic group's or member's fields, a consumer group's
 * opaque bytes): so that every record fits KQ_SNAPSHOT_RECORD_BYTES_MAX. */
#define KQ_GROUP_STORE_BODY_BYTES_MAX 7168u
/* A persisted classic member keeps the metadata of the group's protocol and
 * its assignment (Kafka's GroupMetadataValue: subscription, assignment):
 * while membership is persisted, a JoinGroup naming a protocol with more
 * metadata, or a SyncGroup assigning a member more, is answered
 * INVALID_REQUEST (as a member over KQ_GROUP_MEMBER_BYTES_MAX). This server
 * has one partition: a real subscription and assignment take ~100 bytes. */
#define KQ_GROUP_STORE_METADATA_BYTES_MAX 3072u
#define KQ_GROUP_STORE_ASSIGNMENT_BYTES_MAX 3072u
/* The classic bodies' fixed fields: a member's (three string lengths, two
 * timeouts, two byte lengths: 22) and a group's (state, generation, three
 * string lengths, state timestamp: 19). */
#define KQ_GROUP_STORE_MEMBER_BODY_FIXED_BYTES 22u
#define KQ_GROUP_STORE_GROUP_BODY_FIXED_BYTES 19u
/* Budget of the group store at the log end (every record's cost: fixed,
 * strings and body): the coordinator refuses a join or an assignment that
 * would take what it may write past it with COORDINATOR_NOT_AVAILABLE
 * (retriable; Kafka has no such bound). It keeps every admitted store
 * inside one snapshot beside the offsets and transaction tables. */
#define KQ_GROUP_STORE_BYTES_MAX (8u << 20)
/* One take of the coordinator's changes is one control batch: groups are
 * added whole while the batch holds less than this (one group may take it
 * past: at most KQ_GROUP_STORE_BYTES_MAX and its members' tombstones). */
#define KQ_GROUP_STORE_BATCH_BYTES_TARGET (1u << 20)

_Static_assert(KQ_GROUP_STORE_RECORD_FIXED_BYTES >= 16 + 15 + 12,
               "a group record's fixed cost covers its framing, key and fixed value fields");
_Static_assert(32 + 16 + 12 + 2 * KQ_GROUP_NAME_BYTES_MAX + KQ_GROUP_STORE_BODY_BYTES_MAX <=
                   KQ_SNAPSHOT_RECORD_BYTES_MAX,
               "a kq.group-member record with the largest body fits the record bound");
_Static_assert(KQ_GROUP_STORE_MEMBER_BODY_FIXED_BYTES + 3 * KQ_GROUP_NAME_BYTES_MAX +
                       KQ_GROUP_STORE_METADATA_BYTES_MAX + KQ_GROUP_STORE_ASSIGNMENT_BYTES_MAX <=
                   KQ_GROUP_STORE_BODY_BYTES_MAX,
               "a classic member's body fits the body bound");
_Static_assert(KQ_GROUP_STORE_GROUP_BODY_FIXED_BYTES + 3 * KQ_GROUP_NAME_BYTES_MAX <=
                   KQ_GROUP_STORE_BODY_BYTES_MAX,
               "a classic group's body fits the body bound");
_Static_assert(KQ_GROUP_STORE_METADATA_BYTES_MAX <= KQ_GROUP_MEMBER_BYTES_MAX &&
                   KQ_GROUP_STORE_ASSIGNMENT_BYTES_MAX <= KQ_GROUP_MEMBER_BYTES_MAX,
               "the persisted bounds are tighter than the coordinator's");
_Static_assert((uint64_t)KQ_GROUP_STORE_BATCH_BYTES_TARGET + KQ_GROUP_STORE_BYTES_MAX +
                       (uint64_t)KQ_GROUP_MAX_SIZE_DEFAULT *
                           (KQ_GROUP_STORE_RECORD_FIXED_BYTES + 2 * KQ_GROUP_NAME_BYTES_MAX) <=
                   RECORD_BATCH_BYTES_MAX / 4,
               "a take's batch fits one record batch with room to spare");

/* ---- snapshots of any admitted state (issue 19 item 9; issue 23 adds the
 * transaction table, issue 24 the group store) */
_Static_assert((uint64_t)KQ_GROUP_OFFSETS_BYTES_MAX +
                       (uint64_t)EXEC_PRODUCERS_MAX * KQ_SNAPSHOT_PRODUCER_RECORD_BYTES_MAX +
                       KQ_TXN_SNAPSHOT_BYTES_MAX + KQ_GROUP_STORE_BYTES_MAX +
                       KQ_SNAPSHOT_FIXED_BYTES_MAX + 61ull * KQ_SNAPSHOT_BATCHES_MAX <=
                   KQ_SNAPSHOT_BYTES_MAX,
               "a snapshot of a full offsets table (by bytes), a full producer table, a "
               "full transaction table and a full group store fits the snapshot bound");

#endif
