// saramatxn: the Sarama (github.com/IBM/sarama) side of
// tests/e2e/test_txn_clients.sh (Kafka transactions). One mode per run;
// results on stdout as tab-separated lines, as txn_check.py reads them.
//
//	saramatxn produce BOOTSTRAP TOPIC TXID PREFIX NTXNS K
//	saramatxn fence BOOTSTRAP TOPIC TXID PREFIX
//	saramatxn consume BOOTSTRAP TOPIC ISOLATION PREFIX MARKER TIMEOUT_S
//
// produce: a SyncProducer with Producer.Transaction.ID, Idempotent and
// Net.MaxOpenRequests=1 runs NTXNS transactions of K records each
// (BeginTxn, SendMessages, CommitTxn); every third (i % 3 == 2) is written
// and aborted on purpose (AbortTxn). An error with the producer in
// ProducerTxnFlagAbortableError is answered with AbortTxn and the
// transaction retried with new values; any other error makes a new
// producer. Prints "init<TAB>ok", per value
// "<committed|aborted|aborted-err|unknown><TAB><tag><TAB><value>" (as
// TxnClient.java) and "error<TAB><kind><TAB><error>" per handled error.
//
// fence: producer A begins a transaction and writes 3 records; producer B
// (same TXID) is created, which fences A (InitProducerId bumps the epoch),
// and commits its own; A's next send or its commit must fail with
// PRODUCER_FENCED or INVALID_PRODUCER_EPOCH. Prints "zombie<TAB>a<TAB>value",
// "committed<TAB>b<TAB>value" and "fenced<TAB>error" or
// "notfenced<TAB>what happened".
//
// consume: a Consumer (Consumer.IsolationLevel from ISOLATION:
// read_committed | read_uncommitted) reads partition 0 from the oldest
// offset until the value MARKER; prints "rec<TAB>offset<TAB>value" for values
// beginning with PREFIX.
package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/IBM/sarama"
)

func die(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "saramatxn: "+format+"\n", args...)
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
		die("usage: saramatxn produce|fence|consume BOOTSTRAP ...")
	}
	addrs := strings.Split(os.Args[2], ",")
	a := os.Args
	switch {
	case a[1] == "produce" && len(a) == 8:
		produce(addrs, a[3], a[4], a[5], atoi(a[6]), atoi(a[7]))
	case a[1] == "fence" && len(a) == 6:
		fence(addrs, a[3], a[4], a[5])
	case a[1] == "consume" && len(a) == 8:
		consume(addrs, a[3], a[4], a[5], a[6], time.Duration(atoi(a[7]))*time.Second)
	default:
		die("bad arguments: %v", a[1:])
	}
}

func out(format string, args ...any) {
	fmt.Printf(format+"\n", args...)
}

func config(txid string) *sarama.Config {
	c := sarama.NewConfig()
	c.ClientID = "kq-saramatxn"
	c.Net.DialTimeout = 5 * time.Second
	c.Net.ReadTimeout = 15 * time.Second
	c.Metadata.Retry.Backoff = 200 * time.Millisecond
	c.Producer.Partitioner = sarama.NewManualPartitioner
	if txid != "" {
		c.Producer.Idempotent = true
		c.Producer.Transaction.ID = txid
		c.Producer.Transaction.Timeout = 15 * time.Second
		c.Producer.RequiredAcks = sarama.WaitForAll
		c.Producer.Return.Successes = true
		c.Producer.Retry.Max = 5
		c.Producer.Retry.Backoff = 200 * time.Millisecond
		c.Net.MaxOpenRequests = 1
	}
	return c
}

// newProducer creates a transactional SyncProducer: NewSyncProducer sends
// InitProducerId (the fence of any earlier producer of txid). Retries for
// up to the deadline.
func newProducer(addrs []string, txid string, deadline time.Time) sarama.SyncProducer {
	for {
		p, err := sarama.NewSyncProducer(addrs, config(txid))
		if err == nil {
			return p
		}
		out("error\tinit\t%v", err)
		if time.Now().After(deadline) {
			die("init %s: %v", txid, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func messages(topic string, values []string) []*sarama.ProducerMessage {
	var ms []*sarama.ProducerMessage
	for _, v := range values {
		ms = append(ms, &sarama.ProducerMessage{Topic: topic, Partition: 0, Value: sarama.StringEncoder(v)})
	}
	return ms
}

// oneTxn runs one transaction; commitTried tells whether CommitTxn was called.
func oneTxn(p sarama.SyncProducer, topic string, values []string, commit bool) (commitTried bool, err error) {
	if err = p.BeginTxn(); err != nil {
		return false, fmt.Errorf("BeginTxn: %w", err)
	}
	if err = p.SendMessages(messages(topic, values)); err != nil {
		return false, fmt.Errorf("SendMessages: %w", err)
	}
	if !commit {
		if err = p.AbortTxn(); err != nil {
			return false, fmt.Errorf("AbortTxn: %w", err)
		}
		return false, nil
	}
	if err = p.CommitTxn(); err != nil {
		return true, fmt.Errorf("CommitTxn: %w", err)
	}
	return true, nil
}

func produce(addrs []string, topic, txid, prefix string, ntxns, k int) {
	deadline := time.Now().Add(60 * time.Second)
	p := newProducer(addrs, txid, deadline)
	out("init\tok")
	for i, attempt := 0, 0; i < ntxns; {
		if time.Now().After(deadline) {
			die("deadline passed at transaction %d", i)
		}
		tag := fmt.Sprintf("t%da%d", i, attempt)
		var values []string
		for j := 0; j < k; j++ {
			values = append(values, fmt.Sprintf("%s-%s-r%d", prefix, tag, j))
		}
		onPurpose := i%3 == 2
		commitTried, err := oneTxn(p, topic, values, !onPurpose)
		if err == nil {
			outcome := "committed"
			if onPurpose {
				outcome = "aborted"
			}
			for _, v := range values {
				out("%s\t%s\t%s", outcome, tag, v)
			}
			i, attempt = i+1, 0
			continue
		}
		attempt++
		status := p.TxnStatus()
		if status&sarama.ProducerTxnFlagAbortableError != 0 && status&sarama.ProducerTxnFlagFatalError == 0 {
			out("error\tabortable\t%s %s", tag, errText(err))
			if aerr := p.AbortTxn(); aerr == nil {
				for _, v := range values {
					out("aborted-err\t%s\t%s", tag, v)
				}
				continue
			} else {
				out("error\tfatal\t%s AbortTxn: %v", tag, aerr)
			}
		} else {
			out("error\tfatal\t%s %s (status %v)", tag, errText(err), status)
		}
		outcome := "aborted-err"
		if commitTried {
			outcome = "unknown"
		}
		for _, v := range values {
			out("%s\t%s\t%s", outcome, tag, v)
		}
		_ = p.Close()
		p = newProducer(addrs, txid, deadline)
		out("recreated\t%s", tag)
	}
	if err := p.Close(); err != nil {
		die("close: %v", err)
	}
	out("done\t%d", ntxns)
}

// isFenced: err is, or (SendMessages' ProducerErrors, which do not unwrap)
// holds, PRODUCER_FENCED or INVALID_PRODUCER_EPOCH.
func isFenced(err error) bool {
	var pes sarama.ProducerErrors
	if errors.As(err, &pes) {
		for _, pe := range pes {
			if isFenced(pe.Err) {
				return true
			}
		}
	}
	return errors.Is(err, sarama.ErrProducerFenced) || errors.Is(err, sarama.ErrInvalidProducerEpoch)
}

// errText: err, with the errors inside SendMessages' ProducerErrors.
func errText(err error) string {
	var pes sarama.ProducerErrors
	if errors.As(err, &pes) && len(pes) > 0 {
		return fmt.Sprintf("%v: %v", err, pes[0].Err)
	}
	return err.Error()
}

func fence(addrs []string, topic, txid, prefix string) {
	deadline := time.Now().Add(60 * time.Second)
	a := newProducer(addrs, txid, deadline)
	defer a.Close()
	zv := []string{prefix + "-a-z-0", prefix + "-a-z-1", prefix + "-a-z-2"}
	if err := a.BeginTxn(); err != nil {
		die("a BeginTxn: %v", err)
	}
	for _, v := range zv {
		out("zombie\ta\t%s", v)
	}
	if err := a.SendMessages(messages(topic, zv)); err != nil {
		die("a SendMessages: %v", err)
	}
	// B's InitProducerId bumps the epoch: A is fenced (its open
	// transaction aborted by the coordinator).
	b := newProducer(addrs, txid, deadline)
	defer b.Close()
	bv := []string{prefix + "-b-0", prefix + "-b-1"}
	if _, err := oneTxn(b, topic, bv, true); err != nil {
		die("b: %v", err)
	}
	for _, v := range bv {
		out("committed\tb\t%s", v)
	}
	last := prefix + "-a-z-3"
	out("zombie\ta\t%s", last)
	err := a.SendMessages(messages(topic, []string{last}))
	if err == nil {
		err = a.CommitTxn()
	} else {
		_ = a.AbortTxn()
	}
	switch {
	case err == nil:
		out("notfenced\tthe zombie's commit succeeded")
	case isFenced(err):
		out("fenced\t%s", errText(err))
	default:
		out("notfenced\t%s", errText(err))
	}
}

func consume(addrs []string, topic, iso, prefix, marker string, timeout time.Duration) {
	c := config("")
	c.Consumer.IsolationLevel = sarama.ReadUncommitted
	if iso == "read_committed" {
		c.Consumer.IsolationLevel = sarama.ReadCommitted
	}
	c.Consumer.MaxWaitTime = 300 * time.Millisecond
	c.Consumer.Return.Errors = true
	cons, err := sarama.NewConsumer(addrs, c)
	if err != nil {
		die("consumer: %v", err)
	}
	defer cons.Close()
	pc, err := cons.ConsumePartition(topic, 0, sarama.OffsetOldest)
	if err != nil {
		die("consume partition: %v", err)
	}
	defer pc.Close()
	timer := time.After(timeout)
	for {
		select {
		case m := <-pc.Messages():
			v := string(m.Value)
			if v == marker {
				out("marker\t%d", m.Offset)
				return
			}
			if strings.HasPrefix(v, prefix) {
				out("rec\t%d\t%s", m.Offset, v)
			}
		case e := <-pc.Errors():
			fmt.Fprintf(os.Stderr, "saramatxn: consume: %v\n", e)
		case <-timer:
			die("timeout before the marker %s", marker)
		}
	}
}
