// GroupClient: the Java (kafka-clients 4.4) side of the consumer-group tests
// (tests/e2e/test_groups_failover.sh, test_groups_admin.sh,
// test_groups_idle.sh) and of scripts/bench-groups.sh. Every consumer of a
// run lives in this one JVM (a thread each), so that starting ten of them
// costs one JVM start and their times share one clock. Results on stdout as
// tab-separated lines whose second field is the wall clock in ms
// (System.currentTimeMillis(), comparable with `date +%s%3N`); diagnostics on
// stderr.
//
//   members key=value...
//       Consumer groups and, optionally, a producer, until the stop file
//       exists (or max_s). Keys: boot, topic, groups (name:protocol:count,
//       comma separated; protocol classic or consumer), stop, max_s (600),
//       commit (sync: commitSync of the polled offsets after every poll that
//       returned records | auto: enable.auto.commit | none), auto_ms
//       (auto.commit.interval.ms, 5000), records (0: no producer), rate
//       (records/s), prefix (values prefix-N-<send ms>, to partition 0,
//       acks=all),
//       pstop (a file that stops the producer alone).
//       Lines:
//         ready <ms> <group> <i>                      subscribed
//         assigned|revoked|lost <ms> <group> <i> <partitions> <generation>
//         member <ms> <group> <i> <member id> <generation/epoch>   on change
//         rec <ms> <group> <i> <offset> <value>
//         commit <ms> <group> <i> <offset> ok | err <exception>
//         error <ms> <group> <i> <exception>          poll failed
//         ack <ms> <offset> <value> | perr <ms> <value> <exception>
//         pdone <ms> <acked> <failed>                 producer finished
//         closed <ms> <group> <i>
//   rebalance key=value...
//       The rebalance time of `consumers` consumers joining one new group,
//       `warmup` unmeasured runs then `runs` measured ones, one new group
//       each (keys: boot, topic, protocol, consumers (10), runs (3), warmup
//       (1), quiet_ms (3000), timeout_s (120), group (prefix)). The consumers
//       are constructed first; then each thread calls subscribe() and polls
//       (50 ms) at once. A run ends when every consumer had an assignment
//       callback, exactly one consumer holds partition 0 and fetched a
//       record since its last assignment callback, (classic) every
//       consumer's last assignment is of the same generation, and no
//       callback came for quiet_ms. Its time: from the first subscribe()
//       call to the later of the last assignment callback and the holder's
//       first record after it. Prints "run <n> ms <time> generations <g>
//       callbacks <c>" (warm-up runs: "warmup ..."), g = the number of
//       distinct generations (member epochs) seen in assignment callbacks.
//   produce BOOT TOPIC PREFIX COUNT
//       COUNT records (acks=all) to partition 0; prints ack lines.
//   colocate BOOT TOPIC
//       Kafka only: makes the group coordinator (the leader of
//       __consumer_offsets-0; the tests' brokers have one offsets
//       partition) the leader of TOPIC-0 too (a reassignment that puts it
//       first, then a preferred election), so that killing it fails over
//       both, as killing our leader does. Prints "coordinator <id>".
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public final class GroupClient {
    private static final PrintStream OUT = System.out;
    private static final long T0 = System.nanoTime();

    static void err(String s) {
        System.err.printf("[GroupClient %.3f] %s%n", (System.nanoTime() - T0) / 1e9, s);
    }

    static void out(Object... f) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < f.length; i++) {
            if (i > 0) b.append('\t');
            b.append(f[i]);
        }
        synchronized (OUT) {
            OUT.println(b);
            OUT.flush();
        }
    }

    static long now() {
        return System.currentTimeMillis();
    }

    static String describe(Throwable e) {
        String s = e.getClass().getSimpleName() + ": " + e.getMessage();
        if (e.getCause() != null && e.getCause() != e) {
            s += " (cause " + e.getCause().getClass().getSimpleName() + ": " + e.getCause().getMessage() + ")";
        }
        return s.replace('\t', ' ').replace('\n', ' ');
    }

    static String parts(Collection<TopicPartition> ps) {
        if (ps.isEmpty()) return "-";
        TreeSet<String> s = new TreeSet<>();
        for (TopicPartition p : ps) s.add(p.topic() + ":" + p.partition());
        return String.join(",", s);
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static Map<String, String> kv(String[] a, int from) {
        Map<String, String> m = new HashMap<>();
        for (int i = from; i < a.length; i++) {
            int eq = a[i].indexOf('=');
            if (eq < 0) throw new IllegalArgumentException("not key=value: " + a[i]);
            m.put(a[i].substring(0, eq), a[i].substring(eq + 1));
        }
        return m;
    }

    static Properties consumerProps(String boot, String group, String protocol, String clientId) {
        Properties p = new Properties();
        p.put("bootstrap.servers", boot);
        p.put("group.id", group);
        p.put("group.protocol", protocol);
        p.put("client.id", clientId);
        p.put("auto.offset.reset", "earliest");
        p.put("enable.auto.commit", "false");
        return p;
    }

    static KafkaProducer<String, String> producer(String boot) {
        Properties p = new Properties();
        p.put("bootstrap.servers", boot);
        p.put("acks", "all");
        p.put("linger.ms", "0");
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    // --- members ---------------------------------------------------------

    static final class Member implements Runnable, ConsumerRebalanceListener {
        final String group;
        final int idx;
        final KafkaConsumer<String, String> c;
        final String topic;
        final String commit;
        final AtomicBoolean stop;
        String memberId = "";
        int gen = -2;

        Member(String group, int idx, Properties p, String topic, String commit, AtomicBoolean stop) {
            this.group = group;
            this.idx = idx;
            this.topic = topic;
            this.commit = commit;
            this.stop = stop;
            this.c = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
        }

        int generation() {
            try {
                return c.groupMetadata().generationId();
            } catch (RuntimeException e) {
                return -3;
            }
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> ps) {
            out("assigned", now(), group, idx, parts(ps), generation());
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> ps) {
            out("revoked", now(), group, idx, parts(ps), generation());
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> ps) {
            out("lost", now(), group, idx, parts(ps), generation());
        }

        void noteMember() {
            try {
                String id = c.groupMetadata().memberId();
                int g = c.groupMetadata().generationId();
                if (!id.equals(memberId) || g != gen) {
                    memberId = id;
                    gen = g;
                    out("member", now(), group, idx, id.isEmpty() ? "-" : id, g);
                }
            } catch (RuntimeException e) {
                // not in a group yet
            }
        }

        @Override
        public void run() {
            c.subscribe(List.of(topic), this);
            out("ready", now(), group, idx);
            while (!stop.get()) {
                ConsumerRecords<String, String> rs;
                try {
                    rs = c.poll(Duration.ofMillis(100));
                } catch (WakeupException e) {
                    break;
                } catch (RuntimeException e) {
                    out("error", now(), group, idx, describe(e));
                    sleep(100);
                    continue;
                }
                noteMember();
                if (rs.isEmpty()) continue;
                Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
                long t = now();
                for (ConsumerRecord<String, String> r : rs) {
                    out("rec", t, group, idx, r.offset(), r.value());
                    next.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
                }
                if (commit.equals("sync")) {
                    long o = next.values().iterator().next().offset();
                    try {
                        c.commitSync(next);
                        out("commit", now(), group, idx, o, "ok");
                    } catch (WakeupException e) {
                        break;
                    } catch (RuntimeException e) {
                        out("commit", now(), group, idx, o, "err", describe(e));
                    }
                }
            }
            try {
                c.close(Duration.ofSeconds(20));
            } catch (RuntimeException e) {
                err(group + "/" + idx + ": close: " + describe(e));
            }
            out("closed", now(), group, idx);
        }
    }

    static void produceLoop(String boot, String topic, String prefix, long count, double rate, AtomicBoolean stop,
            Path pstop) {
        AtomicLong acked = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        try (KafkaProducer<String, String> p = producer(boot)) {
            long start = System.nanoTime();
            for (long i = 0; i < count && !stop.get(); i++) {
                if (pstop != null && Files.exists(pstop)) break;
                if (rate > 0) {
                    long due = start + (long) (i * 1e9 / rate);
                    long wait = due - System.nanoTime();
                    if (wait > 0) sleep(wait / 1_000_000);
                }
                // The send time in the value tells a record written after a
                // leader kill (by the new leader) from one fetched before it.
                String v = prefix + "-" + i + "-" + now();
                p.send(new ProducerRecord<>(topic, 0, null, v), (md, e) -> {
                    if (e == null) {
                        acked.incrementAndGet();
                        out("ack", now(), md.offset(), v);
                    } else {
                        failed.incrementAndGet();
                        out("perr", now(), v, describe(e));
                    }
                });
            }
            p.flush();
        }
        out("pdone", now(), acked.get(), failed.get());
    }

    static void members(Map<String, String> o) throws Exception {
        String boot = o.get("boot");
        String topic = o.get("topic");
        String commit = o.getOrDefault("commit", "sync");
        Path stopFile = Path.of(o.get("stop"));
        long maxS = Long.parseLong(o.getOrDefault("max_s", "600"));
        AtomicBoolean stop = new AtomicBoolean();
        List<Member> ms = new ArrayList<>();
        for (String spec : o.get("groups").split(",")) {
            String[] f = spec.split(":");
            for (int i = 0; i < Integer.parseInt(f[2]); i++) {
                Properties p = consumerProps(boot, f[0], f[1], f[0] + "-" + i);
                if (commit.equals("auto")) {
                    p.put("enable.auto.commit", "true");
                    p.put("auto.commit.interval.ms", o.getOrDefault("auto_ms", "5000"));
                }
                ms.add(new Member(f[0], i, p, topic, commit, stop));
            }
        }
        List<Thread> ts = new ArrayList<>();
        for (Member m : ms) {
            Thread t = new Thread(m, m.group + "-" + m.idx);
            t.start();
            ts.add(t);
        }
        long records = Long.parseLong(o.getOrDefault("records", "0"));
        Thread prod = null;
        if (records > 0) {
            double rate = Double.parseDouble(o.getOrDefault("rate", "100"));
            String prefix = o.getOrDefault("prefix", "v");
            Path pstop = o.containsKey("pstop") ? Path.of(o.get("pstop")) : null;
            prod = new Thread(() -> produceLoop(boot, topic, prefix, records, rate, stop, pstop), "producer");
            prod.start();
        }
        long deadline = System.nanoTime() + maxS * 1_000_000_000L;
        while (!Files.exists(stopFile) && System.nanoTime() < deadline) sleep(100);
        if (!Files.exists(stopFile)) err("max_s passed without the stop file");
        stop.set(true);
        if (prod != null) prod.join();
        for (Thread t : ts) t.join();
    }

    // --- rebalance -------------------------------------------------------

    static final class Timed implements ConsumerRebalanceListener {
        final KafkaConsumer<String, String> c;
        volatile long subscribeNs = 0;
        // The latest assignment callback (assigned, revoked or lost).
        volatile long lastCallbackNs = 0;
        volatile long lastAssignedNs = 0;
        volatile int lastGen = -1;
        volatile boolean holds = false;
        volatile long firstRecordNs = 0;  // first record after lastAssignedNs
        volatile int assignedCount = 0;
        final Set<Integer> gens = new HashSet<>();
        volatile int callbacks = 0;

        Timed(KafkaConsumer<String, String> c) {
            this.c = c;
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> ps) {
            long t = System.nanoTime();
            int g = c.groupMetadata().generationId();
            synchronized (this) {
                // The consumer protocol's callback names only what is added.
                holds = !c.assignment().isEmpty();
                lastGen = g;
                gens.add(g);
                lastAssignedNs = t;
                lastCallbackNs = t;
                firstRecordNs = 0;
                assignedCount++;
                callbacks++;
            }
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> ps) {
            synchronized (this) {
                lastCallbackNs = System.nanoTime();
                callbacks++;
                if (!ps.isEmpty()) holds = false;
            }
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> ps) {
            onPartitionsRevoked(ps);
        }
    }

    static String oneRebalance(String boot, String topic, String protocol, String group, int n,
            long quietMs, long timeoutS) throws Exception {
        List<Timed> ts = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ts.add(new Timed(new KafkaConsumer<>(consumerProps(boot, group, protocol, group + "-" + i),
                    new StringDeserializer(), new StringDeserializer())));
        }
        CountDownLatch go = new CountDownLatch(1);
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        for (Timed t : ts) {
            Thread th = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                t.subscribeNs = System.nanoTime();
                t.c.subscribe(List.of(topic), t);
                while (!stop.get()) {
                    try {
                        ConsumerRecords<String, String> rs = t.c.poll(Duration.ofMillis(50));
                        if (!rs.isEmpty()) {
                            synchronized (t) {
                                if (t.firstRecordNs == 0 && t.lastAssignedNs != 0) t.firstRecordNs = System.nanoTime();
                            }
                        }
                    } catch (WakeupException e) {
                        break;
                    } catch (RuntimeException e) {
                        err("poll: " + describe(e));
                        sleep(50);
                    }
                }
            });
            th.start();
            threads.add(th);
        }
        go.countDown();
        long deadline = System.nanoTime() + timeoutS * 1_000_000_000L;
        long doneNs = 0;
        long doneSince = 0;
        String result = null;
        while (System.nanoTime() < deadline) {
            sleep(10);
            long start = Long.MAX_VALUE;
            long lastCb = 0;
            long rec = 0;
            int holders = 0;
            boolean all = true;
            Set<Integer> lastGens = new HashSet<>();
            int callbacks = 0;
            Set<Integer> gens = new HashSet<>();
            for (Timed t : ts) {
                synchronized (t) {
                    if (t.subscribeNs != 0) start = Math.min(start, t.subscribeNs);
                    if (t.assignedCount == 0) all = false;
                    lastCb = Math.max(lastCb, t.lastCallbackNs);
                    if (t.holds) {
                        holders++;
                        rec = t.firstRecordNs;
                    }
                    lastGens.add(t.lastGen);
                    callbacks += t.callbacks;
                    gens.addAll(t.gens);
                }
            }
            boolean sameGen = protocol.equals("consumer") || lastGens.size() == 1;
            if (!all || holders != 1 || rec == 0 || !sameGen) {
                doneNs = 0;
                continue;
            }
            long end = Math.max(lastCb, rec);
            if (end != doneNs) {
                doneNs = end;
                doneSince = System.nanoTime();
            }
            if (System.nanoTime() - doneSince >= quietMs * 1_000_000L) {
                result = String.format("ms %.1f generations %d callbacks %d", (doneNs - start) / 1e6,
                        gens.size(), callbacks);
                break;
            }
        }
        stop.set(true);
        for (Timed t : ts) t.c.wakeup();
        for (Thread th : threads) th.join();
        List<Thread> closers = new ArrayList<>();
        for (Timed t : ts) {
            Thread th = new Thread(() -> t.c.close(Duration.ofSeconds(10)));
            th.start();
            closers.add(th);
        }
        for (Thread th : closers) th.join();
        if (result == null) throw new RuntimeException("group " + group + " did not settle within " + timeoutS + " s");
        return result;
    }

    static void rebalance(Map<String, String> o) throws Exception {
        String boot = o.get("boot");
        String topic = o.get("topic");
        String protocol = o.getOrDefault("protocol", "classic");
        int n = Integer.parseInt(o.getOrDefault("consumers", "10"));
        int runs = Integer.parseInt(o.getOrDefault("runs", "3"));
        int warmup = Integer.parseInt(o.getOrDefault("warmup", "1"));
        long quiet = Long.parseLong(o.getOrDefault("quiet_ms", "3000"));
        long timeout = Long.parseLong(o.getOrDefault("timeout_s", "120"));
        String prefix = o.getOrDefault("group", "rb") + "-" + protocol + "-" + Long.toString(now() % 1000000);
        for (int i = 1; i <= warmup + runs; i++) {
            String r = oneRebalance(boot, topic, protocol, prefix + "-" + i, n, quiet, timeout);
            if (i <= warmup) out("warmup", i, r);
            else out("run", i - warmup, r);
        }
    }

    // --- produce, colocate ------------------------------------------------

    static void produce(String[] a) {
        produceLoop(a[1], a[2], a[3], Long.parseLong(a[4]), 0, new AtomicBoolean(), null);
    }

    static int leaderOf(Admin admin, String topic) throws Exception {
        TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
        TopicPartitionInfo p = d.partitions().get(0);
        return p.leader() == null ? -1 : p.leader().id();
    }

    static void colocate(String[] a) throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, a[1]);
        String topic = a[2];
        TopicPartition tp = new TopicPartition(topic, 0);
        try (Admin admin = Admin.create(p)) {
            int coord = leaderOf(admin, "__consumer_offsets");
            if (coord < 0) throw new RuntimeException("__consumer_offsets-0 has no leader");
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (leaderOf(admin, topic) != coord) {
                TopicPartitionInfo info = admin.describeTopics(List.of(topic)).allTopicNames().get()
                        .get(topic).partitions().get(0);
                List<Integer> replicas = new ArrayList<>();
                replicas.add(coord);
                for (var n : info.replicas()) if (n.id() != coord) replicas.add(n.id());
                if (info.replicas().get(0).id() != coord) {
                    admin.alterPartitionReassignments(Map.of(tp, Optional.of(new NewPartitionReassignment(replicas))))
                            .all().get();
                    while (!admin.listPartitionReassignments(Set.of(tp)).reassignments().get().isEmpty()) sleep(100);
                }
                try {
                    admin.electLeaders(ElectionType.PREFERRED, Set.of(tp)).all().get();
                } catch (Exception e) {
                    err("electLeaders: " + describe(e));
                }
                if (System.nanoTime() > deadline) throw new RuntimeException("cannot move " + tp + " to " + coord);
                sleep(300);
            }
            out("coordinator", coord);
        }
    }

    public static void main(String[] a) throws Exception {
        if (a.length < 1) {
            err("usage: GroupClient members|rebalance|produce|colocate ...");
            System.exit(2);
        }
        try {
            switch (a[0]) {
                case "members" -> members(kv(a, 1));
                case "rebalance" -> rebalance(kv(a, 1));
                case "produce" -> produce(a);
                case "colocate" -> colocate(a);
                default -> {
                    err("unknown mode " + a[0]);
                    System.exit(2);
                }
            }
        } catch (Exception e) {
            err("failed: " + describe(e));
            e.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }
}
