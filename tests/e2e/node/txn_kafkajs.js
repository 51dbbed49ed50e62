#!/usr/bin/env node
// The kafkajs side of tests/e2e/test_txn_clients.sh (Kafka transactions).
// kafkajs comes from the package.json beside this file, installed into
// .cache by the test (NODE_PATH). One mode per run; results on stdout as
// tab-separated lines, as txn_check.py reads them.
//
//   txn_kafkajs.js produce BOOT TOPIC TXID PREFIX NTXNS K
//       producer({transactionalId, idempotent: true, maxInFlightRequests: 1})
//       runs NTXNS transactions of K records (transaction(), send, commit);
//       every third (i % 3 == 2) is written and aborted on purpose. An error
//       while the transaction is still active is answered with abort() and
//       the transaction retried with new values; otherwise a new producer.
//       Prints "init\tok", per value
//       "<committed|aborted|aborted-err|unknown>\t<tag>\t<value>" (as
//       TxnClient.java) and "error\t<kind>\t<error>" per handled error.
//   txn_kafkajs.js fence BOOT TOPIC TXID PREFIX
//       Producer A begins a transaction and writes 3 records; producer B
//       (same TXID) starts its own, which fences A (InitProducerId), and
//       commits it; A's next send or its commit must fail with
//       PRODUCER_FENCED or INVALID_PRODUCER_EPOCH. Prints "zombie\ta\t<value>",
//       "committed\tb\t<value>" and "fenced\t<error>" or
//       "notfenced\t<what happened>".
//   txn_kafkajs.js offsets BOOT TOPIC TXID PREFIX GROUP
//       Two transactions, each writing one record and adding GROUP's offset
//       of partition 0 (sendOffsets: AddOffsetsToTxn, TxnOffsetCommit): the
//       first (offset 7) committed, the second (offset 9) aborted; then the
//       admin client fetches GROUP's offset. Prints the values as produce
//       does and "offset\t<the fetched offset>" (7 when the aborted
//       transaction's offset was dropped).
//   txn_kafkajs.js consume BOOT TOPIC ISOLATION PREFIX MARKER TIMEOUT_S
//       A consumer of a new group (readUncommitted: ISOLATION ==
//       read_uncommitted) reads the topic from the beginning until the value
//       MARKER; prints "rec\t<offset>\t<value>" for PREFIX values.
'use strict';

process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';
const { Kafka, logLevel, CompressionTypes, CompressionCodecs } = require('kafkajs');
// franz-go compresses its batches with Snappy, which kafkajs reads only
// with this codec.
CompressionCodecs[CompressionTypes.Snappy] = require('kafkajs-snappy');

const out = line => process.stdout.write(line + '\n');
const die = msg => {
    process.stderr.write(`txn_kafkajs: ${msg}\n`);
    process.exit(1);
};

function kafka(boot) {
    return new Kafka({
        clientId: 'kq-kafkajs',
        brokers: boot.split(','),
        connectionTimeout: 5000,
        requestTimeout: 15000,
        retry: { retries: 8, initialRetryTime: 200, maxRetryTime: 2000 },
        logLevel: logLevel.ERROR,
        logCreator: () => ({ namespace, level, log }) =>
            process.stderr.write(`kafkajs ${level} ${namespace}: ${log.message} ${log.error || ''}\n`),
    });
}

async function newProducer(k, txid) {
    const p = k.producer({
        transactionalId: txid,
        idempotent: true,
        maxInFlightRequests: 1,
        transactionTimeout: 15000,
    });
    await p.connect();
    return p;
}

// The error and the errors it wraps (retries exhausted, causes).
function chain(e) {
    const all = [];
    for (let c = e; c && all.length < 8 && !all.includes(c); c = c.originalError || c.cause) all.push(c);
    return all;
}
const describe = e => chain(e).map(c => `${c.name}${c.type ? `(${c.type})` : ''}: ${c.message}`).join(' <- ');
const fencedTypes = ['PRODUCER_FENCED', 'INVALID_PRODUCER_EPOCH'];
// kafkajs 2.2.4 knows no PRODUCER_FENCED (code 90): match the code as well.
const isFenced = e => chain(e).some(c => fencedTypes.includes(c.type) || c.code === 90 || c.code === 47);

const msgs = values => values.map(v => ({ value: v, partition: 0 }));

async function produce(boot, topic, txid, prefix, ntxns, k) {
    const deadline = Date.now() + 60000;
    const kf = kafka(boot);
    let p = await newProducer(kf, txid);
    out('init\tok');
    for (let i = 0, attempt = 0; i < ntxns;) {
        if (Date.now() > deadline) die(`deadline passed at transaction ${i}`);
        const tag = `t${i}a${attempt}`;
        const values = [...Array(k).keys()].map(j => `${prefix}-${tag}-r${j}`);
        const onPurpose = i % 3 === 2;
        let txn = null;
        let commitTried = false;
        try {
            txn = await p.transaction();
            await txn.send({ topic, acks: -1, messages: msgs(values) });
            if (onPurpose) {
                await txn.abort();
            } else {
                commitTried = true;
                await txn.commit();
            }
            for (const v of values) out(`${onPurpose ? 'aborted' : 'committed'}\t${tag}\t${v}`);
            i++;
            attempt = 0;
            continue;
        } catch (e) {
            attempt++;
            out(`error\t${txn && txn.isActive() ? 'abortable' : 'fatal'}\t${tag} ${describe(e)}`);
            if (txn && txn.isActive() && !isFenced(e)) {
                try {
                    await txn.abort();
                    for (const v of values) out(`aborted-err\t${tag}\t${v}`);
                    continue;
                } catch (e2) {
                    out(`error\tfatal\t${tag} abort: ${describe(e2)}`);
                }
            }
        }
        for (const v of values) out(`${commitTried ? 'unknown' : 'aborted-err'}\t${tag}\t${v}`);
        await p.disconnect().catch(() => {});
        p = await newProducer(kf, txid);
        out(`recreated\t${attempt}`);
    }
    await p.disconnect();
    out(`done\t${ntxns}`);
}

async function fence(boot, topic, txid, prefix) {
    const kf = kafka(boot);
    const a = await newProducer(kf, txid);
    const zv = [0, 1, 2].map(j => `${prefix}-a-z-${j}`);
    const ta = await a.transaction();
    for (const v of zv) out(`zombie\ta\t${v}`);
    await ta.send({ topic, acks: -1, messages: msgs(zv) });
    // B's InitProducerId bumps the epoch: A is fenced (its open transaction
    // aborted by the coordinator).
    const b = await newProducer(kf, txid);
    const bv = [0, 1].map(j => `${prefix}-b-${j}`);
    const tb = await b.transaction();
    await tb.send({ topic, acks: -1, messages: msgs(bv) });
    await tb.commit();
    for (const v of bv) out(`committed\tb\t${v}`);
    const last = `${prefix}-a-z-3`;
    out(`zombie\ta\t${last}`);
    let err = null;
    try {
        await ta.send({ topic, acks: -1, messages: msgs([last]) });
        await ta.commit();
    } catch (e) {
        err = e;
        if (ta.isActive()) await ta.abort().catch(() => {});
    }
    if (!err) out("notfenced\tthe zombie's commit succeeded");
    else out(`${isFenced(err) ? 'fenced' : 'notfenced'}\t${describe(err)}`);
    await a.disconnect().catch(() => {});
    await b.disconnect();
}

async function offsets(boot, topic, txid, prefix, group) {
    const kf = kafka(boot);
    const p = await newProducer(kf, txid);
    for (const [off, commit] of [[7, true], [9, false]]) {
        const v = `${prefix}-o${off}`;
        const t = await p.transaction();
        await t.send({ topic, acks: -1, messages: msgs([v]) });
        await t.sendOffsets({
            consumerGroupId: group,
            topics: [{ topic, partitions: [{ partition: 0, offset: String(off) }] }],
        });
        await (commit ? t.commit() : t.abort());
        out(`${commit ? 'committed' : 'aborted'}\to${off}\t${v}`);
    }
    await p.disconnect();
    const admin = kf.admin();
    await admin.connect();
    // The offsets count once the marker is written: ask for up to 15 s.
    let at = '-1';
    for (const end = Date.now() + 15000; at === '-1' && Date.now() < end;) {
        const r = await admin.fetchOffsets({ groupId: group, topics: [topic] });
        const part = r[0].partitions.find(x => x.partition === 0);
        at = part ? part.offset : '-1';
        if (at === '-1') await new Promise(res => setTimeout(res, 200));
    }
    out(`offset\t${at}`);
    await admin.disconnect();
}

async function consume(boot, topic, iso, prefix, marker, timeoutS) {
    const kf = kafka(boot);
    const c = kf.consumer({
        groupId: `kq-kafkajs-${process.pid}-${Date.now()}`,
        readUncommitted: iso !== 'read_committed',
        maxWaitTimeInMs: 300,
        sessionTimeout: 10000,
        heartbeatInterval: 1000,
    });
    await c.connect();
    await c.subscribe({ topic, fromBeginning: true });
    const timer = setTimeout(() => die(`timeout before the marker ${marker}`), timeoutS * 1000);
    await new Promise((resolve, reject) => {
        let found = false;
        c.run({
            autoCommit: false,
            eachMessage: async ({ partition, message }) => {
                if (found || partition !== 0) return;
                const v = message.value ? message.value.toString() : '';
                if (v === marker) {
                    out(`marker\t${message.offset}`);
                    found = true;
                    resolve();
                } else if (v.startsWith(prefix)) {
                    out(`rec\t${message.offset}\t${v}`);
                }
            },
        }).catch(reject);
    });
    clearTimeout(timer);
    await c.disconnect();
}

async function main() {
    const a = process.argv.slice(2);
    if (a[0] === 'produce' && a.length === 7) await produce(a[1], a[2], a[3], a[4], +a[5], +a[6]);
    else if (a[0] === 'fence' && a.length === 5) await fence(a[1], a[2], a[3], a[4]);
    else if (a[0] === 'offsets' && a.length === 6) await offsets(a[1], a[2], a[3], a[4], a[5]);
    else if (a[0] === 'consume' && a.length === 7) await consume(a[1], a[2], a[3], a[4], a[5], +a[6]);
    else die(`bad arguments: ${a.join(' ')}`);
}

main().then(() => process.exit(0), e => die(describe(e)));
