// TxnClient: the Java (kafka-clients 4.4) side of tests/e2e/test_txn_clients.sh
// and scripts/bench-txn.sh. One mode per run; results on stdout as
// tab-separated lines, diagnostics on stderr.
//
//   produce BOOT TOPIC TXID PREFIX MIN_TXNS K STOPFILE MAX_S [OPEN_MS]
//       Transactions of K records until MIN_TXNS are done and STOPFILE exists
//       (or MAX_S passed), each kept open OPEN_MS (default 0) after its
//       records were flushed, so that a leader kill most likely lands in an
//       open transaction; every third (i % 3 == 2) is flushed and aborted on
//       purpose, the rest committed; the last one is a commit. Errors are
//       handled as the KafkaProducer javadoc says: fatal ones (fenced, out of
//       order sequence, authorization) close the producer and create a new one
//       (the next initTransactions aborts what it left open), any other
//       KafkaException aborts the transaction, which is then retried with new
//       values. Prints per value "<outcome>\t<txn tag>\t<value>" where outcome
//       is committed | aborted (on purpose) | aborted-err (abortTransaction
//       succeeded after an error) | unknown (commit was tried, then the
//       producer failed: all of the transaction or none of it may be visible);
//       per handled error "error\t<fatal|abortable|timeout>\t<exception>".
//   consume BOOT TOPIC ISOLATION PREFIX MARKER TIMEOUT_S
//       Reads partition 0 from the beginning (no group) with
//       isolation.level=ISOLATION until the value MARKER; prints
//       "rec\t<offset>\t<value>" for values starting with PREFIX. Exit 1 on
//       timeout.
//   zombie BOOT TOPIC TXID PREFIX
//       Producer A commits one transaction, begins another and flushes 3
//       records; producer B (same TXID) initTransactions, which fences A; A
//       sends one more record and commits: must fail with
//       ProducerFencedException or InvalidProducerEpochException. B then
//       commits a transaction. Prints "committed\t..", "zombie\t<value>" (A's
//       records of the fenced transaction: never visible read_committed) and
//       "fenced\t<exception class>" or "notfenced\t<what happened>".
//   hold BOOT TOPIC TXID VALUE STOPFILE MAX_S
//       Begins a transaction, writes VALUE, prints "held", keeps it open
//       until STOPFILE exists, then aborts it and prints "aborted".
//   bench BOOT TOPIC TXID RECORDS WARMUP_TXNS TXNS
//       WARMUP_TXNS transactions, then TXNS timed ones of RECORDS 100-byte
//       records; prints "txns N secs S tps X commit_p50_ms A commit_p99_ms B
//       txn_p50_ms C txn_p99_ms D" (commit = the commitTransaction() call,
//       txn = beginTransaction() to commitTransaction() returning).
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public final class TxnClient {
    private static long t0 = System.nanoTime();

    private static void err(String s) {
        System.err.printf("[TxnClient %.3f] %s%n", (System.nanoTime() - t0) / 1e9, s);
    }

    private static void out(String s) {
        System.out.println(s);
        System.out.flush();
    }

    private static String describe(Throwable e) {
        String s = e.getClass().getSimpleName() + ": " + e.getMessage();
        if (e.getCause() != null && e.getCause() != e) {
            s += " (cause " + e.getCause().getClass().getSimpleName() + ": " + e.getCause().getMessage() + ")";
        }
        return s.replace('\t', ' ').replace('\n', ' ');
    }

    static Properties producerProps(String boot, String txid, int txnTimeoutMs) {
        Properties p = new Properties();
        p.put("bootstrap.servers", boot);
        p.put("transactional.id", txid);
        p.put("enable.idempotence", "true");
        p.put("acks", "all");
        p.put("transaction.timeout.ms", Integer.toString(txnTimeoutMs));
        p.put("max.block.ms", "15000");
        p.put("request.timeout.ms", "5000");
        p.put("delivery.timeout.ms", "20000");
        p.put("linger.ms", "0");
        p.put("retry.backoff.ms", "100");
        p.put("retry.backoff.max.ms", "1000");
        p.put("reconnect.backoff.max.ms", "1000");
        p.put("metadata.max.age.ms", "5000");
        return p;
    }

    static KafkaProducer<String, String> newProducer(String boot, String txid, int txnTimeoutMs) {
        return new KafkaProducer<>(producerProps(boot, txid, txnTimeoutMs), new StringSerializer(),
                new StringSerializer());
    }

    // initTransactions, retried (a TimeoutException may be retried on the same
    // producer; anything else gets a new producer) until deadlineNs.
    static KafkaProducer<String, String> initProducer(String boot, String txid, int txnTimeoutMs,
            long deadlineNs) {
        KafkaProducer<String, String> p = newProducer(boot, txid, txnTimeoutMs);
        while (true) {
            try {
                p.initTransactions();
                return p;
            } catch (TimeoutException e) {
                out("error\ttimeout\tinitTransactions: " + describe(e));
            } catch (KafkaException e) {
                out("error\tfatal\tinitTransactions: " + describe(e));
                p.close(Duration.ZERO);
                p = newProducer(boot, txid, txnTimeoutMs);
            }
            if (System.nanoTime() > deadlineNs) {
                throw new RuntimeException("initTransactions did not succeed before the deadline");
            }
            sleep(200);
        }
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static boolean isFatal(Throwable e) {
        return e instanceof ProducerFencedException || e instanceof OutOfOrderSequenceException
                || e instanceof AuthorizationException;
    }

    static void printAll(String outcome, String tag, List<String> values) {
        for (String v : values) {
            out(outcome + "\t" + tag + "\t" + v);
        }
    }

    static void produce(String[] a) {
        String boot = a[1], topic = a[2], txid = a[3], prefix = a[4];
        int minTxns = Integer.parseInt(a[5]), k = Integer.parseInt(a[6]);
        Path stop = Path.of(a[7]);
        long deadline = System.nanoTime() + Long.parseLong(a[8]) * 1_000_000_000L;
        int timeoutMs = 15000;
        long openMs = a.length > 9 ? Long.parseLong(a[9]) : 0;
        KafkaProducer<String, String> p = initProducer(boot, txid, timeoutMs, deadline);
        out("init\tok");
        int i = 0, attempt = 0;
        boolean lastCommitted = false;
        while (!(i >= minTxns && lastCommitted && Files.exists(stop))) {
            if (System.nanoTime() > deadline) {
                err("deadline passed after " + i + " transactions");
                System.exit(2);
            }
            String tag = "t" + i + "a" + attempt;
            boolean abortOnPurpose = i % 3 == 2;
            List<String> values = new ArrayList<>();
            for (int j = 0; j < k; j++) {
                values.add(prefix + "-" + tag + "-r" + j);
            }
            boolean commitTried = false;
            try {
                p.beginTransaction();
                for (String v : values) {
                    p.send(new ProducerRecord<>(topic, 0, null, v));
                }
                if (openMs > 0) {
                    p.flush();
                    sleep(openMs);
                }
                if (abortOnPurpose) {
                    p.flush();
                    p.abortTransaction();
                    printAll("aborted", tag, values);
                    lastCommitted = false;
                } else {
                    commitTried = true;
                    commitRetrying(p);
                    printAll("committed", tag, values);
                    lastCommitted = true;
                }
                i++;
                attempt = 0;
                sleep(openMs > 0 ? 5 : 20);
                continue;
            } catch (KafkaException e) {
                boolean fatal = isFatal(e) || isFatal(e.getCause());
                out("error\t" + (fatal ? "fatal" : "abortable") + "\t" + tag + " " + describe(e));
                if (!fatal) {
                    try {
                        p.abortTransaction();
                        printAll("aborted-err", tag, values);
                        attempt++;
                        continue;
                    } catch (KafkaException | IllegalStateException e2) {
                        out("error\tfatal\t" + tag + " abortTransaction: " + describe(e2));
                    }
                }
            } catch (IllegalStateException e) {
                out("error\tfatal\t" + tag + " " + describe(e));
            }
            // The producer cannot go on: a new one (its initTransactions ends
            // what this one left open).
            printAll(commitTried ? "unknown" : "aborted-err", tag, values);
            attempt++;
            p.close(Duration.ZERO);
            p = initProducer(boot, txid, timeoutMs, deadline);
            out("recreated\t" + tag);
        }
        p.close(Duration.ofSeconds(5));
        out("done\t" + i);
    }

    // commitTransaction; a TimeoutException may be retried (the javadoc).
    static void commitRetrying(KafkaProducer<String, String> p) {
        for (int t = 0; ; t++) {
            try {
                p.commitTransaction();
                return;
            } catch (TimeoutException e) {
                out("error\ttimeout\tcommitTransaction: " + describe(e));
                if (t >= 3) {
                    throw e;
                }
            }
        }
    }

    static void consume(String[] a) {
        String boot = a[1], topic = a[2], iso = a[3], prefix = a[4], marker = a[5];
        long deadline = System.nanoTime() + Long.parseLong(a[6]) * 1_000_000_000L;
        Properties c = new Properties();
        c.put("bootstrap.servers", boot);
        c.put("isolation.level", iso);
        c.put("enable.auto.commit", "false");
        c.put("auto.offset.reset", "earliest");
        c.put("fetch.max.wait.ms", "200");
        c.put("request.timeout.ms", "5000");
        c.put("reconnect.backoff.max.ms", "1000");
        TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaConsumer<String, String> k = new KafkaConsumer<>(c, new StringDeserializer(),
                new StringDeserializer())) {
            k.assign(List.of(tp));
            k.seekToBeginning(List.of(tp));
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : k.poll(Duration.ofMillis(500))) {
                    String v = r.value();
                    if (v == null) {
                        continue;
                    }
                    if (v.equals(marker)) {
                        out("marker\t" + r.offset());
                        return;
                    }
                    if (v.startsWith(prefix)) {
                        out("rec\t" + r.offset() + "\t" + v);
                    }
                }
            }
        }
        err("timeout before the marker " + marker);
        System.exit(1);
    }

    static void zombie(String[] a) {
        String boot = a[1], topic = a[2], txid = a[3], prefix = a[4];
        long deadline = System.nanoTime() + 60_000_000_000L;
        KafkaProducer<String, String> pa = initProducer(boot, txid, 30000, deadline);
        List<String> ok = List.of(prefix + "-a-ok-0", prefix + "-a-ok-1");
        pa.beginTransaction();
        for (String v : ok) {
            pa.send(new ProducerRecord<>(topic, 0, null, v));
        }
        pa.commitTransaction();
        printAll("committed", "a", ok);
        List<String> z = new ArrayList<>(Arrays.asList(prefix + "-a-z-0", prefix + "-a-z-1", prefix + "-a-z-2"));
        pa.beginTransaction();
        for (String v : z) {
            pa.send(new ProducerRecord<>(topic, 0, null, v));
        }
        pa.flush();
        printAll("zombie", "a", z);
        KafkaProducer<String, String> pb = initProducer(boot, txid, 30000, deadline);
        out("init\tb");
        String last = prefix + "-a-z-3";
        out("zombie\ta\t" + last);
        try {
            pa.send(new ProducerRecord<>(topic, 0, null, last));
            pa.commitTransaction();
            out("notfenced\tthe zombie's commitTransaction succeeded");
        } catch (ProducerFencedException | InvalidProducerEpochException e) {
            out("fenced\t" + e.getClass().getSimpleName());
        } catch (KafkaException e) {
            Throwable c = e.getCause();
            if (c instanceof ProducerFencedException || c instanceof InvalidProducerEpochException) {
                out("fenced\t" + c.getClass().getSimpleName());
            } else {
                out("notfenced\t" + describe(e));
            }
        }
        pa.close(Duration.ZERO);
        List<String> bv = List.of(prefix + "-b-0", prefix + "-b-1");
        pb.beginTransaction();
        for (String v : bv) {
            pb.send(new ProducerRecord<>(topic, 0, null, v));
        }
        pb.commitTransaction();
        printAll("committed", "b", bv);
        pb.close(Duration.ofSeconds(5));
    }

    static void hold(String[] a) {
        String boot = a[1], topic = a[2], txid = a[3], value = a[4];
        Path stop = Path.of(a[5]);
        long deadline = System.nanoTime() + Long.parseLong(a[6]) * 1_000_000_000L;
        KafkaProducer<String, String> p = initProducer(boot, txid, 120000, deadline);
        p.beginTransaction();
        p.send(new ProducerRecord<>(topic, 0, null, value));
        p.flush();
        out("held");
        while (!Files.exists(stop) && System.nanoTime() < deadline) {
            sleep(100);
        }
        p.abortTransaction();
        out("aborted");
        p.close(Duration.ofSeconds(5));
    }

    static double pct(long[] sortedNs, double q) {
        int idx = (int) Math.ceil(q * sortedNs.length) - 1;
        return sortedNs[Math.max(0, Math.min(sortedNs.length - 1, idx))] / 1e6;
    }

    static void bench(String[] a) {
        String boot = a[1], topic = a[2], txid = a[3];
        int records = Integer.parseInt(a[4]), warm = Integer.parseInt(a[5]), n = Integer.parseInt(a[6]);
        Properties props = producerProps(boot, txid, 60000);
        props.put("max.block.ms", "60000");
        props.put("request.timeout.ms", "30000");
        props.put("delivery.timeout.ms", "120000");
        byte[] payload = new byte[100];
        Arrays.fill(payload, (byte) 'x');
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(props, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            p.initTransactions();
            long[] commitNs = new long[n], txnNs = new long[n];
            long start = 0;
            for (int t = 0; t < warm + n; t++) {
                if (t == warm) {
                    start = System.nanoTime();
                }
                long b = System.nanoTime();
                p.beginTransaction();
                for (int r = 0; r < records; r++) {
                    p.send(new ProducerRecord<>(topic, 0, null, payload));
                }
                long c = System.nanoTime();
                p.commitTransaction();
                long e = System.nanoTime();
                if (t >= warm) {
                    commitNs[t - warm] = e - c;
                    txnNs[t - warm] = e - b;
                }
            }
            double secs = (System.nanoTime() - start) / 1e9;
            Arrays.sort(commitNs);
            Arrays.sort(txnNs);
            out(String.format("txns %d secs %.3f tps %.1f commit_p50_ms %.3f commit_p99_ms %.3f"
                    + " txn_p50_ms %.3f txn_p99_ms %.3f", n, secs, n / secs, pct(commitNs, 0.5),
                    pct(commitNs, 0.99), pct(txnNs, 0.5), pct(txnNs, 0.99)));
        }
    }

    public static void main(String[] a) {
        if (a.length < 1) {
            err("usage: TxnClient produce|consume|zombie|hold|bench ...");
            System.exit(2);
        }
        switch (a[0]) {
            case "produce" -> produce(a);
            case "consume" -> consume(a);
            case "zombie" -> zombie(a);
            case "hold" -> hold(a);
            case "bench" -> bench(a);
            default -> {
                err("unknown mode " + a[0]);
                System.exit(2);
            }
        }
        System.exit(0);
    }
}
