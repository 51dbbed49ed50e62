// txnclient: the franz-go side of tests/e2e/test_txn_clients.sh (Kafka
// transactions). One mode per run; results on stdout as tab-separated lines.
//
//	txnclient produce BOOTSTRAP TOPIC PREFIX COUNT
//	txnclient etl BOOTSTRAP TOPIC GROUP TXID INPREFIX OUTPREFIX COUNT TIMEOUT_S
//	txnclient consume BOOTSTRAP TOPIC ISOLATION PREFIX MARKER TIMEOUT_S
//	txnclient fence BOOTSTRAP TOPIC TXID PREFIX
//
// produce writes PREFIX0..PREFIX<COUNT-1> (plain idempotent producer, acks=all,
// partition 0) and prints "ack<TAB>offset<TAB>value".
//
// etl is a consume-transform-produce loop in a kgo.GroupTransactSession: it
// consumes the values beginning with INPREFIX from GROUP (read_committed),
// writes OUTPREFIX+<rest of the value> for each in a transaction that also
// commits the group's offsets, until COUNT distinct inputs were committed.
// The first transaction holding inputs is aborted on purpose (its inputs are
// consumed again). It prints "out<TAB>committed|aborted<TAB>in<TAB>out" per
// input of each ended transaction, "error<TAB>..." for an End that failed (the
// session is then made anew) and "committed<TAB>offset" (the group's
// committed offset, read back with kadm) at the end.
//
// consume reads partition 0 from the start (no group) with the isolation
// level (read_committed | read_uncommitted) until the value MARKER; prints
// "rec<TAB>offset<TAB>value" for values beginning with PREFIX.
//
// fence: client A begins a transaction and writes 3 records; client B (same
// TXID) writes in its own transaction, which fences A; A's commit must fail
// with PRODUCER_FENCED or INVALID_PRODUCER_EPOCH; B commits. Prints
// "committed<TAB>b<TAB>value", "zombie<TAB>a<TAB>value" and "fenced<TAB>error"
// or "notfenced<TAB>what happened".
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

func die(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "txnclient: "+format+"\n", args...)
	os.Exit(1)
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		die("not a number: %s", s)
	}
	return n
}

func main() {
	if len(os.Args) < 3 {
		die("usage: txnclient produce|etl|consume|fence BOOTSTRAP ...")
	}
	seeds := strings.Split(os.Args[2], ",")
	a := os.Args
	switch {
	case a[1] == "produce" && len(a) == 6:
		produce(seeds, a[3], a[4], atoi(a[5]))
	case a[1] == "etl" && len(a) == 10:
		etl(seeds, a[3], a[4], a[5], a[6], a[7], atoi(a[8]), time.Duration(atoi(a[9]))*time.Second)
	case a[1] == "consume" && len(a) == 8:
		consume(seeds, a[3], a[4], a[5], a[6], time.Duration(atoi(a[7]))*time.Second)
	case a[1] == "fence" && len(a) == 6:
		fence(seeds, a[3], a[4], a[5])
	default:
		die("bad arguments: %v", a[1:])
	}
}

func common(seeds []string) []kgo.Opt {
	return []kgo.Opt{
		kgo.SeedBrokers(seeds...),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.RequestTimeoutOverhead(5 * time.Second),
		kgo.RetryTimeout(30 * time.Second),
		kgo.MetadataMinAge(250 * time.Millisecond),
	}
}

func produce(seeds []string, topic, prefix string, n int) {
	cl, err := kgo.NewClient(append(common(seeds), kgo.RequiredAcks(kgo.AllISRAcks()))...)
	if err != nil {
		die("client: %v", err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var rs []*kgo.Record
	for i := 0; i < n; i++ {
		rs = append(rs, &kgo.Record{Topic: topic, Partition: 0, Value: []byte(prefix + strconv.Itoa(i))})
	}
	for _, r := range cl.ProduceSync(ctx, rs...) {
		if r.Err != nil {
			die("produce %s: %v", r.Record.Value, r.Err)
		}
		fmt.Printf("ack\t%d\t%s\n", r.Record.Offset, r.Record.Value)
	}
}

func newSession(seeds []string, topic, group, txid string) *kgo.GroupTransactSession {
	opts := append(common(seeds),
		kgo.TransactionalID(txid),
		kgo.TransactionTimeout(20*time.Second),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumerGroup(group),
		kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxWait(300*time.Millisecond),
		kgo.SessionTimeout(10*time.Second),
		kgo.HeartbeatInterval(1*time.Second),
	)
	s, err := kgo.NewGroupTransactSession(opts...)
	if err != nil {
		die("session: %v", err)
	}
	return s
}

// etlBatch transforms the inputs among fetches in the open transaction;
// returns the (in, out) pairs and whether every produce succeeded.
func etlBatch(ctx context.Context, s *kgo.GroupTransactSession, fetches kgo.Fetches, topic, inPrefix, outPrefix string) ([][2]string, bool) {
	var pairs [][2]string
	fetches.EachRecord(func(r *kgo.Record) {
		v := string(r.Value)
		if strings.HasPrefix(v, inPrefix) {
			pairs = append(pairs, [2]string{v, outPrefix + strings.TrimPrefix(v, inPrefix)})
		}
	})
	var rs []*kgo.Record
	for _, p := range pairs {
		rs = append(rs, &kgo.Record{Topic: topic, Partition: 0, Value: []byte(p[1])})
	}
	ok := true
	if len(rs) > 0 {
		for _, r := range s.ProduceSync(ctx, rs...) {
			if r.Err != nil {
				fmt.Printf("error\tproduce\t%v\n", r.Err)
				ok = false
			}
		}
	}
	return pairs, ok
}

func etl(seeds []string, topic, group, txid, inPrefix, outPrefix string, n int, timeout time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	s := newSession(seeds, topic, group, txid)
	done := map[string]bool{}
	abortedOnPurpose := false
	for len(done) < n {
		if ctx.Err() != nil {
			die("timeout: %d of %d inputs committed", len(done), n)
		}
		fetches := s.PollFetches(ctx)
		if ctx.Err() != nil {
			continue
		}
		fetches.EachError(func(t string, p int32, err error) {
			fmt.Fprintf(os.Stderr, "txnclient: fetch %s[%d]: %v\n", t, p, err)
		})
		if err := s.Begin(); err != nil {
			die("begin: %v", err)
		}
		pairs, ok := etlBatch(ctx, s, fetches, topic, inPrefix, outPrefix)
		try := kgo.TryCommit
		if !ok || (len(pairs) > 0 && !abortedOnPurpose) {
			try = kgo.TryAbort
			abortedOnPurpose = abortedOnPurpose || ok
		}
		committed, err := s.End(ctx, try)
		outcome := "aborted"
		if committed {
			outcome = "committed"
		}
		if err != nil {
			// No End error is retryable (its doc): a new session.
			fmt.Printf("error\tend\t%v\n", err)
			outcome = "unknown"
		}
		for _, p := range pairs {
			fmt.Printf("out\t%s\t%s\t%s\n", outcome, p[0], p[1])
			if committed {
				done[p[0]] = true
			}
		}
		if err != nil {
			s.Close()
			s = newSession(seeds, topic, group, txid)
		}
	}
	fmt.Printf("committed\t%d\n", committedOffset(ctx, s.Client(), topic, group))
	s.Close()
}

// committedOffset reads the group's offset of partition 0 back with kadm. A
// transaction's offsets count once its markers are written, which the broker
// does after EndTxn answered: it asks again for up to 15 s while there is none.
func committedOffset(ctx context.Context, cl *kgo.Client, topic, group string) int64 {
	off := int64(-1)
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		resp, err := kadm.NewClient(cl).FetchOffsets(ctx, group)
		if err != nil {
			die("fetch offsets: %v", err)
		}
		if o, ok := resp.Lookup(topic, 0); ok {
			if o.Err != nil {
				die("fetch offsets: %v", o.Err)
			}
			off = o.At
		}
		if off >= 0 {
			break
		}
	}
	return off
}

func consume(seeds []string, topic, iso, prefix, marker string, timeout time.Duration) {
	level := kgo.ReadUncommitted()
	if iso == "read_committed" {
		level = kgo.ReadCommitted()
	}
	cl, err := kgo.NewClient(append(common(seeds),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().AtStart()}}),
		kgo.FetchIsolationLevel(level), kgo.FetchMaxWait(300*time.Millisecond))...)
	if err != nil {
		die("client: %v", err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for {
		fetches := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			die("timeout before the marker %s", marker)
		}
		found := false
		fetches.EachRecord(func(r *kgo.Record) {
			v := string(r.Value)
			if found {
				return
			}
			if v == marker {
				fmt.Printf("marker\t%d\n", r.Offset)
				found = true
			} else if strings.HasPrefix(v, prefix) {
				fmt.Printf("rec\t%d\t%s\n", r.Offset, v)
			}
		})
		if found {
			return
		}
	}
}

func txnClient(seeds []string, topic, txid string) *kgo.Client {
	cl, err := kgo.NewClient(append(common(seeds), kgo.TransactionalID(txid),
		kgo.TransactionTimeout(30*time.Second), kgo.DefaultProduceTopic(topic))...)
	if err != nil {
		die("client: %v", err)
	}
	return cl
}

func produceIn(ctx context.Context, cl *kgo.Client, topic string, vals []string) error {
	var rs []*kgo.Record
	for _, v := range vals {
		rs = append(rs, &kgo.Record{Topic: topic, Partition: 0, Value: []byte(v)})
	}
	return cl.ProduceSync(ctx, rs...).FirstErr()
}

func fence(seeds []string, topic, txid, prefix string) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	a, b := txnClient(seeds, topic, txid), txnClient(seeds, topic, txid)
	defer a.Close()
	defer b.Close()
	zv := []string{prefix + "-a-z-0", prefix + "-a-z-1", prefix + "-a-z-2"}
	if err := a.BeginTransaction(); err != nil {
		die("a begin: %v", err)
	}
	for _, v := range zv {
		fmt.Printf("zombie\ta\t%s\n", v)
	}
	if err := produceIn(ctx, a, topic, zv); err != nil {
		die("a produce: %v", err)
	}
	bv := []string{prefix + "-b-0", prefix + "-b-1"}
	if err := b.BeginTransaction(); err != nil {
		die("b begin: %v", err)
	}
	// B's first produce initializes its producer id: the fence.
	if err := produceIn(ctx, b, topic, bv); err != nil {
		die("b produce: %v", err)
	}
	last := prefix + "-a-z-3"
	fmt.Printf("zombie\ta\t%s\n", last)
	err := produceIn(ctx, a, topic, []string{last})
	if err == nil {
		err = a.EndTransaction(ctx, kgo.TryCommit)
	} else {
		_ = a.EndTransaction(ctx, kgo.TryAbort)
	}
	switch {
	case err == nil:
		fmt.Printf("notfenced\tthe zombie's commit succeeded\n")
	case errors.Is(err, kerr.ProducerFenced) || errors.Is(err, kerr.InvalidProducerEpoch):
		fmt.Printf("fenced\t%v\n", err)
	default:
		fmt.Printf("notfenced\t%v\n", err)
	}
	if err := b.EndTransaction(ctx, kgo.TryCommit); err != nil {
		die("b commit: %v", err)
	}
	for _, v := range bv {
		fmt.Printf("committed\tb\t%s\n", v)
	}
}
