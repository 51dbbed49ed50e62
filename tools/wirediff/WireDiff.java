/*
 * The differential test of our wire descriptions against Kafka's own
 * generated message classes (issue 21 item 4). For every (api, version,
 * request|response) that build/kq-wirediff lists and every seed:
 *
 *   ours -> Kafka   our random message H (kq-wirediff "random") is read by
 *                   Kafka's XData class and written back by it: the bytes must
 *                   be H, and Kafka's values must equal our decode of H
 *                   (kq-wirediff "decode"), whose re-encode must be H too.
 *   Kafka -> ours   a random Struct from Kafka's SCHEMAS[version] is written,
 *                   read into XData and written by it (Kafka's canonical bytes
 *                   K): our decode of K must have Kafka's values and our
 *                   re-encode must be K byte for byte.
 *
 * Values are compared as JSON trees keyed by Kafka's snake_case field names
 * (the schema's names, which our wire_msg_json uses): numbers by value, Uuid as
 * its toString, bytes and records as base64, null as null, every field the
 * version has (tagged ones with their value or default).
 *
 *   java -cp <classes>:<kafka lib>/* WireDiff [--bin build/kq-wirediff]
 *        [--seeds 200] [--first-seed 1] [--api KEY] [--show 5] [--mutant NAME]
 *
 * Prints a summary and the first failures; exits 1 on any failure. With
 * --mutant, kq-wirediff serves the named mutant descriptions (a field missing
 * from each message's newest version) and the run passes only if every
 * message's newest version fails: the proof that the check can fail. Run by
 * scripts/wire-diff.sh.
 */
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.types.BoundField;
import org.apache.kafka.common.protocol.types.Field;
import org.apache.kafka.common.protocol.types.Schema;
import org.apache.kafka.common.protocol.types.Struct;
import org.apache.kafka.common.protocol.types.TaggedFields;
import org.apache.kafka.common.protocol.types.Type;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;

public class WireDiff {
    static final ObjectMapper JSON = new ObjectMapper();
    static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    static final char[] HEX = "0123456789abcdef".toCharArray();

    /* ---- kq-wirediff, the C side ---- */

    static final class Ours implements AutoCloseable {
        final List<String> command;
        Process proc;
        BufferedReader in;
        BufferedWriter out;

        Ours(List<String> command) throws IOException {
            this.command = command;
            start();
        }

        void start() throws IOException {
            proc = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            in = new BufferedReader(new InputStreamReader(proc.getInputStream(), StandardCharsets.UTF_8));
            out = new BufferedWriter(new OutputStreamWriter(proc.getOutputStream(), StandardCharsets.UTF_8));
        }

        /* After a crash: a new process for the next case. */
        void restart() throws IOException {
            proc.destroyForcibly();
            start();
        }

        /* The answers to many requests, written by another thread so that
         * neither pipe can fill up. A random's answer is its hex (in .hex);
         * a decode's is its JSON and re-encode. A request that kills
         * kq-wirediff gets an error answer and a new process serves the rest. */
        List<Decoded> answers(List<String> lines, boolean decode) throws IOException {
            List<Decoded> out = new ArrayList<>();
            try {
                writeAll(lines);
                for (int i = 0; i < lines.size(); i++)
                    out.add(decode ? readDecoded() : readHex());
                return out;
            } catch (IOException e) {
                restart();
            }
            out.clear();
            for (String line : lines) {
                try {
                    writeAll(List.of(line));
                    out.add(decode ? readDecoded() : readHex());
                } catch (IOException e) {
                    out.add(new Decoded(null, null, (decode ? "ours: " : "") + e.getMessage()));
                    restart();
                }
            }
            return out;
        }

        void writeAll(List<String> lines) {
            BufferedWriter w = out;
            Thread t = new Thread(() -> {
                try {
                    for (String line : lines) {
                        w.write(line);
                        w.write('\n');
                    }
                    w.flush();
                } catch (IOException e) {
                    /* the reader sees the process end */
                }
            });
            t.setDaemon(true);
            t.start();
        }

        Decoded readHex() throws IOException {
            String s = next();
            return s.startsWith("error") ? new Decoded(null, null, s) : new Decoded(null, s, null);
        }

        Decoded readDecoded() throws IOException {
            String first = next();
            if (first.startsWith("error"))
                return new Decoded(null, null, "ours: " + first);
            JsonNode json;
            try {
                json = normalise(JSON.readTree(first));
            } catch (IOException e) {
                next();
                return new Decoded(null, null, "ours: bad JSON: " + first);
            }
            String second = next();
            if (second.startsWith("error"))
                return new Decoded(json, null, "ours: re-encode: " + second);
            return new Decoded(json, second, null);
        }

        String ask(String line) throws IOException {
            out.write(line);
            out.write('\n');
            out.flush();
            return next();
        }

        String next() throws IOException {
            String s = in.readLine();
            if (s == null)
                throw new IOException("kq-wirediff exited (exit code " + exitCode() + ")");
            return s;
        }

        String exitCode() {
            try {
                proc.waitFor(2, java.util.concurrent.TimeUnit.SECONDS);
                return proc.isAlive() ? "still running" : String.valueOf(proc.exitValue());
            } catch (InterruptedException e) {
                return "?";
            }
        }

        @Override
        public void close() {
            proc.destroy();
        }
    }

    record Msg(int api, short version, boolean response) {
        String dir() {
            return response ? "resp" : "req";
        }

        @Override
        public String toString() {
            ApiKeys k = apiKey();
            return (k != null ? k.name : "api" + api) + " v" + version + " " + dir();
        }

        ApiKeys apiKey() {
            try {
                return ApiKeys.forId(api);
            } catch (IllegalArgumentException e) {
                return null;
            }
        }
    }

    /* One side of a decode: our JSON and re-encode, or why not. */
    record Decoded(JsonNode json, String hex, String error) {}

    /* ---- Kafka's side ---- */

    static final class KafkaMsg {
        final Class<?> cls;
        final Constructor<?> reader;
        final Schema[] schemas;

        KafkaMsg(Msg m) throws ReflectiveOperationException {
            ApiMessageType t = ApiKeys.forId(m.api).messageType;
            ApiMessage proto = m.response ? t.newResponse() : t.newRequest();
            cls = proto.getClass();
            reader = cls.getConstructor(org.apache.kafka.common.protocol.Readable.class, short.class);
            schemas = m.response ? t.responseSchemas() : t.requestSchemas();
        }

        Schema schema(short v) {
            return v >= 0 && v < schemas.length ? schemas[v] : null;
        }

        Message read(byte[] bytes, short v) throws ReflectiveOperationException {
            ByteBuffer buf = ByteBuffer.wrap(bytes);
            Message msg = (Message) reader.newInstance(new ByteBufferAccessor(buf), v);
            if (buf.hasRemaining())
                throw new IllegalStateException("Kafka left " + buf.remaining() + " of " + bytes.length + " bytes");
            return msg;
        }
    }

    static byte[] kafkaWrite(Message msg, short v) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = msg.size(cache, v);
        ByteBuffer buf = ByteBuffer.allocate(size);
        msg.write(new ByteBufferAccessor(buf), cache, v);
        if (buf.hasRemaining())
            throw new IllegalStateException("Kafka wrote " + buf.position() + " of its size " + size);
        return buf.array();
    }

    /* ---- the dump of a Kafka object: walk the schema, read the getters ---- */

    static final Map<Class<?>, Map<String, Method>> GETTERS = new HashMap<>();

    static String squash(String name) {
        return name.replace("_", "").toLowerCase();
    }

    static Method getter(Class<?> cls, String name) {
        Map<String, Method> byName = GETTERS.computeIfAbsent(cls, c -> {
            Map<String, Method> map = new HashMap<>();
            for (Method meth : c.getMethods())
                if (meth.getParameterCount() == 0 && !Modifier.isStatic(meth.getModifiers()))
                    map.putIfAbsent(squash(meth.getName()), meth);
            return map;
        });
        Method meth = byName.get(squash(name));
        if (meth == null)
            throw new IllegalStateException("no getter for " + name + " in " + cls.getName());
        return meth;
    }

    static ObjectNode dump(Object obj, Schema schema) throws ReflectiveOperationException {
        ObjectNode node = NODES.objectNode();
        for (BoundField bf : schema.fields()) {
            if (bf.def.type instanceof TaggedFields tagged) {
                for (Field f : tagged.fields().values())
                    node.set(f.name, dumpValue(getter(obj.getClass(), f.name).invoke(obj), f.type));
            } else {
                node.set(bf.def.name, dumpValue(getter(obj.getClass(), bf.def.name).invoke(obj), bf.def.type));
            }
        }
        return node;
    }

    static JsonNode dumpValue(Object v, Type t) throws ReflectiveOperationException {
        if (v == null)
            return NODES.nullNode();
        if (t instanceof Schema s)
            return dump(v, s);
        if (t.isArray()) {
            ArrayNode arr = NODES.arrayNode();
            Type elem = t.arrayElementType().orElseThrow();
            for (Object e : (Iterable<?>) v)
                arr.add(dumpValue(e, elem));
            return arr;
        }
        if (v instanceof Boolean b)
            return NODES.booleanNode(b);
        if (v instanceof Double d)
            return NODES.numberNode(d);
        if (v instanceof Number n)
            return NODES.numberNode(n.longValue());
        if (v instanceof String s)
            return NODES.textNode(s);
        if (v instanceof Uuid u)
            return NODES.textNode(u.toString());
        if (v instanceof byte[] b)
            return NODES.textNode(Base64.getEncoder().encodeToString(b));
        if (v instanceof ByteBuffer b)
            return NODES.textNode(base64(b));
        if (v instanceof MemoryRecords r)
            return NODES.textNode(base64(r.buffer()));
        if (v instanceof BaseRecords r)
            throw new IllegalStateException("records of " + r.getClass().getName());
        throw new IllegalStateException("cannot dump a " + v.getClass().getName());
    }

    static String base64(ByteBuffer b) {
        ByteBuffer d = b.duplicate();
        byte[] bytes = new byte[d.remaining()];
        d.get(bytes);
        return Base64.getEncoder().encodeToString(bytes);
    }

    /* Our JSON with every integer as a long, so that trees compare by value. */
    static JsonNode normalise(JsonNode n) {
        if (n.isIntegralNumber())
            return NODES.numberNode(n.longValue());
        if (n.isObject()) {
            ObjectNode o = NODES.objectNode();
            for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                o.set(e.getKey(), normalise(e.getValue()));
            }
            return o;
        }
        if (n.isArray()) {
            ArrayNode a = NODES.arrayNode();
            for (JsonNode e : n)
                a.add(normalise(e));
            return a;
        }
        return n;
    }

    /* The first difference between two trees, as "path: ours vs Kafka's", or null. */
    static String firstDiff(String path, JsonNode ours, JsonNode kafka) {
        if (ours.isObject() && kafka.isObject()) {
            TreeSet<String> names = new TreeSet<>();
            ours.fieldNames().forEachRemaining(names::add);
            kafka.fieldNames().forEachRemaining(names::add);
            for (String name : names) {
                JsonNode a = ours.get(name), b = kafka.get(name);
                if (a == null)
                    return path + "." + name + ": missing in ours (Kafka: " + b + ")";
                if (b == null)
                    return path + "." + name + ": not in Kafka's version (ours: " + a + ")";
                String d = firstDiff(path + "." + name, a, b);
                if (d != null)
                    return d;
            }
            return null;
        }
        if (ours.isArray() && kafka.isArray()) {
            if (ours.size() != kafka.size())
                return path + ": " + ours.size() + " elements vs Kafka's " + kafka.size();
            for (int i = 0; i < ours.size(); i++) {
                String d = firstDiff(path + "[" + i + "]", ours.get(i), kafka.get(i));
                if (d != null)
                    return d;
            }
            return null;
        }
        return ours.equals(kafka) ? null : path + ": " + ours + " vs Kafka's " + kafka;
    }

    /* ---- random values from Kafka's schema ---- */

    static final long[] EDGES = {0, 1, -1, 2, 127, -128, 32767, -32768, Integer.MAX_VALUE, Integer.MIN_VALUE,
                                 Long.MAX_VALUE, Long.MIN_VALUE};

    static long randomLong(Random r) {
        return r.nextInt(3) == 0 ? EDGES[r.nextInt(EDGES.length)] : r.nextLong();
    }

    static byte[] randomBytes(Random r) {
        byte[] b = new byte[r.nextInt(12)];
        r.nextBytes(b);
        return b;
    }

    static Struct randomStruct(Schema schema, Random r) {
        Struct s = new Struct(schema);
        for (BoundField bf : schema.fields())
            s.set(bf.def.name, randomValue(bf.def.type, r));
        return s;
    }

    static Object randomValue(Type t, Random r) {
        if (t instanceof TaggedFields tagged) {
            TreeMap<Integer, Object> present = new TreeMap<>();
            for (Map.Entry<Integer, Field> e : tagged.fields().entrySet())
                if (r.nextBoolean())
                    present.put(e.getKey(), randomValue(e.getValue().type, r));
            return present;
        }
        if (t.isNullable() && r.nextInt(5) == 0)
            return null;
        if (t instanceof Schema s)
            return randomStruct(s, r);
        if (t.isArray()) {
            Object[] elems = new Object[r.nextInt(4)];
            for (int i = 0; i < elems.length; i++)
                elems[i] = randomValue(t.arrayElementType().orElseThrow(), r);
            return elems;
        }
        if (t == Type.BOOLEAN)
            return r.nextBoolean();
        if (t == Type.INT8)
            return (byte) randomLong(r);
        if (t == Type.INT16)
            return (short) randomLong(r);
        if (t == Type.UINT16)
            return (int) (randomLong(r) & 0xffff);
        if (t == Type.INT32)
            return (int) randomLong(r);
        if (t == Type.UNSIGNED_INT32)
            return randomLong(r) & 0xffffffffL;
        if (t == Type.INT64)
            return randomLong(r);
        if (t == Type.FLOAT64)
            return r.nextDouble();
        if (t == Type.UUID)
            return new Uuid(r.nextLong(), r.nextLong());
        if (t == Type.STRING || t == Type.COMPACT_STRING || t == Type.NULLABLE_STRING
                || t == Type.COMPACT_NULLABLE_STRING) {
            char[] c = new char[r.nextInt(12)];
            for (int i = 0; i < c.length; i++)
                c[i] = (char) ('a' + r.nextInt(26));
            return new String(c);
        }
        if (t == Type.BYTES || t == Type.COMPACT_BYTES || t == Type.NULLABLE_BYTES
                || t == Type.COMPACT_NULLABLE_BYTES)
            return ByteBuffer.wrap(randomBytes(r));
        if (t == Type.RECORDS || t == Type.COMPACT_RECORDS || t == Type.NULLABLE_RECORDS
                || t == Type.COMPACT_NULLABLE_RECORDS)
            return MemoryRecords.readableRecords(ByteBuffer.wrap(randomBytes(r)));
        throw new IllegalStateException("no random value for type " + t);
    }

    /* ---- the two directions ---- */

    record Failure(Msg msg, String direction, long seed, String what, String hex, JsonNode ours, JsonNode kafka) {}

    static final class Run {
        final Ours ours;
        final List<Failure> failures = new ArrayList<>();
        final List<String> notes = new ArrayList<>();
        long cases;

        Run(Ours ours) {
            this.ours = ours;
        }

        void fail(Msg m, String dir, long seed, String what, String hex, JsonNode o, JsonNode k) {
            failures.add(new Failure(m, dir, seed, what, hex, o, k));
        }
    }

    /* One seed's case on Kafka's side: its canonical bytes and values. */
    record KafkaCase(long seed, String hex, JsonNode json) {}

    static KafkaCase kafkaCase(Msg m, KafkaMsg k, long seed) throws ReflectiveOperationException {
        Schema schema = k.schema(m.version);
        Random r = new Random(seed * 1000003L + m.api * 131L + m.version * 7L + (m.response ? 1 : 0));
        Struct s = randomStruct(schema, r);
        ByteBuffer buf = ByteBuffer.allocate(schema.sizeOf(s));
        schema.write(buf, s);
        Message msg = k.read(buf.array(), m.version);
        return new KafkaCase(seed, hex(kafkaWrite(msg, m.version)), dump(msg, schema));
    }

    /* ours -> Kafka: our random message (hex) and our decode of it. */
    static void oursToKafka(Run run, Msg m, KafkaMsg k, long seed, String hex, Decoded d) throws Exception {
        final String dir = "ours->Kafka";
        if (d.error != null) {
            run.fail(m, dir, seed, d.error, hex, d.json, null);
            return;
        }
        if (!d.hex.equals(hex))
            run.fail(m, dir, seed, "ours: our re-encode of our own message differs: " + d.hex, hex, d.json, null);
        Message msg;
        try {
            msg = k.read(unhex(hex), m.version);
        } catch (Exception e) {
            run.fail(m, dir, seed, "Kafka cannot read our bytes: " + cause(e), hex, d.json, null);
            return;
        }
        String back = hex(kafkaWrite(msg, m.version));
        JsonNode kafka = dump(msg, k.schema(m.version));
        if (!back.equals(hex))
            run.fail(m, dir, seed, "Kafka re-writes our bytes differently: " + back, hex, d.json, kafka);
        String diff = firstDiff("", d.json, kafka);
        if (diff != null)
            run.fail(m, dir, seed, "values differ at " + diff, hex, d.json, kafka);
    }

    /* Kafka -> ours: Kafka's canonical bytes and our decode of them. */
    static void kafkaToOurs(Run run, Msg m, KafkaCase kc, Decoded d) {
        final String dir = "Kafka->ours";
        if (d.error != null) {
            run.fail(m, dir, kc.seed, d.error, kc.hex, d.json, kc.json);
            return;
        }
        String diff = firstDiff("", d.json, kc.json);
        if (diff != null)
            run.fail(m, dir, kc.seed, "values differ at " + diff, kc.hex, d.json, kc.json);
        if (!d.hex.equals(kc.hex))
            run.fail(m, dir, kc.seed, "our re-encode differs from Kafka's bytes: " + d.hex, kc.hex, d.json, kc.json);
    }

    /* Every seed of one message: our random messages in one batch, then our
     * decodes of them and of Kafka's messages in another. */
    static void check(Run run, Msg m, long firstSeed, int seeds) throws IOException {
        KafkaMsg k;
        try {
            k = new KafkaMsg(m);
        } catch (Exception e) {
            run.fail(m, "-", 0, "no Kafka message class: " + cause(e), null, null, null);
            return;
        }
        if (k.schema(m.version) == null) {
            /* Kafka 4.0 dropped old versions (KIP-896) that some clients still
             * send: nothing to compare with, which is said, not failed (as
             * scripts/wire-json-check.py does). */
            run.notes.add(m + ": described, but Kafka 4.4.0's " + k.cls.getSimpleName() + " has no version "
                          + m.version + " (not compared)");
            return;
        }
        String args = m.api + " " + m.version + " " + m.dir() + " ";
        List<String> randoms = new ArrayList<>();
        for (long seed = firstSeed; seed < firstSeed + seeds; seed++)
            randoms.add("random " + args + seed);
        List<Decoded> ourHex = run.ours.answers(randoms, false);
        List<KafkaCase> kafka = new ArrayList<>();
        for (long seed = firstSeed; seed < firstSeed + seeds; seed++) {
            try {
                kafka.add(kafkaCase(m, k, seed));
            } catch (Exception e) {
                run.cases++;
                run.fail(m, "Kafka->ours", seed, "harness: Kafka's side: " + cause(e), null, null, null);
            }
        }
        List<String> decodes = new ArrayList<>();
        for (Decoded h : ourHex)
            decodes.add("decode " + args + (h.error == null ? h.hex : "00"));
        for (KafkaCase kc : kafka)
            decodes.add("decode " + args + kc.hex);
        List<Decoded> answers = run.ours.answers(decodes, true);
        for (int i = 0; i < ourHex.size(); i++) {
            long seed = firstSeed + i;
            run.cases++;
            try {
                if (ourHex.get(i).error != null)
                    run.fail(m, "ours->Kafka", seed, "ours: random: " + ourHex.get(i).error, null, null, null);
                else
                    oursToKafka(run, m, k, seed, ourHex.get(i).hex, answers.get(i));
            } catch (Exception e) {
                run.fail(m, "ours->Kafka", seed, "harness: " + cause(e), null, null, null);
            }
        }
        for (int i = 0; i < kafka.size(); i++) {
            run.cases++;
            kafkaToOurs(run, m, kafka.get(i), answers.get(ourHex.size() + i));
        }
    }

    /* ---- helpers and main ---- */

    static String cause(Throwable e) {
        while (e.getCause() != null && e.getCause() != e)
            e = e.getCause();
        return e.getClass().getSimpleName() + ": " + e.getMessage();
    }

    static String hex(byte[] b) {
        char[] c = new char[b.length * 2];
        for (int i = 0; i < b.length; i++) {
            c[2 * i] = HEX[(b[i] >> 4) & 15];
            c[2 * i + 1] = HEX[b[i] & 15];
        }
        return new String(c);
    }

    static byte[] unhex(String s) {
        byte[] b = new byte[s.length() / 2];
        for (int i = 0; i < b.length; i++)
            b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        return b;
    }

    static List<Msg> list(Ours ours, int onlyApi) throws IOException {
        List<Msg> msgs = new ArrayList<>();
        for (String line = ours.ask("list"); !line.equals("end"); line = ours.next()) {
            String[] w = line.split(" ");
            if (w.length != 3)
                throw new IOException("kq-wirediff list: bad line '" + line + "'");
            Msg m = new Msg(Integer.parseInt(w[0]), Short.parseShort(w[1]), w[2].equals("resp"));
            if (onlyApi < 0 || m.api == onlyApi)
                msgs.add(m);
        }
        return msgs;
    }

    static void report(Run run, List<Msg> msgs, int show) {
        TreeSet<Integer> apis = new TreeSet<>();
        msgs.forEach(m -> apis.add(m.api));
        TreeMap<String, Integer> byMsg = new TreeMap<>();
        run.failures.forEach(f -> byMsg.merge(f.msg.toString() + " " + f.direction, 1, Integer::sum));
        System.out.printf("wire-diff: %d apis, %d (api, version, direction) messages, %d cases, %d failures%n",
                          apis.size(), msgs.size(), run.cases, run.failures.size());
        run.notes.forEach(n -> System.out.println("  note: " + n));
        byMsg.forEach((k, v) -> System.out.printf("  FAIL %-40s %d%n", k, v));
        for (int i = 0; i < Math.min(show, run.failures.size()); i++) {
            Failure f = run.failures.get(i);
            System.out.printf("%n--- failure %d: %s, %s, seed %d%n    %s%n", i + 1, f.msg, f.direction, f.seed, f.what);
            if (f.hex != null)
                System.out.println("    bytes:  " + f.hex);
            if (f.ours != null)
                System.out.println("    ours:   " + f.ours);
            if (f.kafka != null)
                System.out.println("    Kafka:  " + f.kafka);
        }
    }

    /* Every message's newest version must have failed under the mutant. */
    static boolean mutantCaught(Run run, List<Msg> msgs, String mutant) {
        TreeMap<String, Msg> newest = new TreeMap<>();
        for (Msg m : msgs)
            newest.merge(m.api + " " + m.dir(), m, (a, b) -> a.version >= b.version ? a : b);
        TreeSet<String> failed = new TreeSet<>();
        run.failures.forEach(f -> failed.add(f.msg.toString()));
        List<String> missed = new ArrayList<>();
        for (Msg m : newest.values())
            if (!failed.contains(m.toString()))
                missed.add(m.toString());
        System.out.printf("wire-diff mutant %s: %d failures; caught in %d of %d messages' newest version%n",
                          mutant, run.failures.size(), newest.size() - missed.size(), newest.size());
        missed.forEach(m -> System.out.println("  NOT CAUGHT " + m));
        return !newest.isEmpty() && missed.isEmpty();
    }

    public static void main(String[] args) throws Exception {
        String bin = "build/kq-wirediff", mutant = null;
        int seeds = 200, show = 5, onlyApi = -1;
        long firstSeed = 1;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--bin" -> bin = args[++i];
                case "--seeds" -> seeds = Integer.parseInt(args[++i]);
                case "--first-seed" -> firstSeed = Long.parseLong(args[++i]);
                case "--api" -> onlyApi = Integer.parseInt(args[++i]);
                case "--show" -> show = Integer.parseInt(args[++i]);
                case "--mutant" -> mutant = args[++i];
                default -> {
                    System.err.println("usage: WireDiff [--bin PATH] [--seeds N] [--first-seed N] [--api KEY] [--show N]");
                    System.exit(2);
                }
            }
        }
        List<String> command = new ArrayList<>(List.of(bin));
        if (mutant != null)
            command.addAll(List.of("--mutant", mutant));
        try (Ours ours = new Ours(command)) {
            List<Msg> msgs = list(ours, onlyApi);
            Run run = new Run(ours);
            for (Msg m : msgs)
                check(run, m, firstSeed, seeds);
            report(run, msgs, show);
            if (mutant != null)
                System.exit(mutantCaught(run, msgs, mutant) ? 0 : 1);
            if (msgs.isEmpty()) {
                System.out.println("wire-diff: FAIL: kq-wirediff lists no described message");
                System.exit(1);
            }
            System.exit(run.failures.isEmpty() ? 0 : 1);
        }
    }
}
