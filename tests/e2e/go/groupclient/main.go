// groupclient: one producer or group-consumer run with franz-go for the
// consumer-group tests (same interface and output as tests/e2e/group_client.py).
//
//	groupclient produce BOOTSTRAP TOPIC PREFIX COUNT
//	groupclient consume BOOTSTRAP TOPIC GROUP PREFIX COUNT [TIMEOUT_S]
//
// produce prints "ack<TAB>offset<TAB>value" per acknowledged record (acks=all,
// partition 0). consume joins GROUP (classic protocol, start offset earliest,
// no auto-commit), reads until it has seen COUNT distinct values beginning
// with PREFIX- (or the timeout), commits synchronously, reads the committed
// offset back with kadm and leaves the group; it prints
// "assigned<TAB>topic:partition,...", "rec<TAB>offset<TAB>value" and
// "committed<TAB>offset".
package main

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

func die(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "groupclient: "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	if len(os.Args) < 3 {
		die("usage: groupclient produce|consume ...")
	}
	bootstrap := strings.Split(os.Args[2], ",")
	switch os.Args[1] {
	case "produce":
		if len(os.Args) != 6 {
			die("usage: groupclient produce BOOTSTRAP TOPIC PREFIX COUNT")
		}
		n, _ := strconv.Atoi(os.Args[5])
		produce(bootstrap, os.Args[3], os.Args[4], n)
	case "consume":
		if len(os.Args) < 7 {
			die("usage: groupclient consume BOOTSTRAP TOPIC GROUP PREFIX COUNT [TIMEOUT_S]")
		}
		n, _ := strconv.Atoi(os.Args[6])
		timeout := 60.0
		if len(os.Args) > 7 {
			timeout, _ = strconv.ParseFloat(os.Args[7], 64)
		}
		consume(bootstrap, os.Args[3], os.Args[4], os.Args[5], n, time.Duration(timeout*float64(time.Second)))
	default:
		die("unknown mode %s", os.Args[1])
	}
}

func produce(bootstrap []string, topic, prefix string, n int) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap...), kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.DisableIdempotentWrite(), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerLinger(5*time.Millisecond),
		// Uncompressed: kafka-python (Debian, no python3-snappy) reads the same log.
		kgo.ProducerBatchCompression(kgo.NoCompression()))
	if err != nil {
		die("client: %v", err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var mu sync.Mutex
	var wg sync.WaitGroup
	var firstErr error
	acks := make([]string, 0, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		r := &kgo.Record{Topic: topic, Partition: 0, Value: []byte(fmt.Sprintf("%s-%d", prefix, i))}
		cl.Produce(ctx, r, func(r *kgo.Record, err error) {
			defer wg.Done()
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				return
			}
			acks = append(acks, fmt.Sprintf("ack\t%d\t%s", r.Offset, r.Value))
		})
	}
	wg.Wait()
	for _, a := range acks {
		fmt.Println(a)
	}
	if firstErr != nil {
		die("produce: %v", firstErr)
	}
}

func consume(bootstrap []string, topic, group, prefix string, n int, timeout time.Duration) {
	var mu sync.Mutex
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap...), kgo.ConsumerGroup(group),
		kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.DisableAutoCommit(), kgo.SessionTimeout(10*time.Second),
		kgo.HeartbeatInterval(time.Second),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
			var parts []string
			for t, ps := range m {
				for _, p := range ps {
					parts = append(parts, fmt.Sprintf("%s:%d", t, p))
				}
			}
			sort.Strings(parts)
			mu.Lock()
			fmt.Printf("assigned\t%s\n", strings.Join(parts, ","))
			mu.Unlock()
		}))
	if err != nil {
		die("client: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	seen := map[string]bool{}
	for len(seen) < n && ctx.Err() == nil {
		fs := cl.PollFetches(ctx)
		fs.EachError(func(t string, p int32, err error) {
			if ctx.Err() == nil {
				mu.Lock()
				fmt.Printf("error\t%s:%d %v\n", t, p, err)
				mu.Unlock()
			}
		})
		fs.EachRecord(func(r *kgo.Record) {
			v := string(r.Value)
			mu.Lock()
			fmt.Printf("rec\t%d\t%s\n", r.Offset, v)
			mu.Unlock()
			if strings.HasPrefix(v, prefix+"-") {
				seen[v] = true
			}
		})
	}
	cctx, ccancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer ccancel()
	if err := cl.CommitUncommittedOffsets(cctx); err != nil {
		die("commit: %v", err)
	}
	resp, err := kadm.NewClient(cl).FetchOffsets(cctx, group)
	if err != nil {
		die("fetch offsets: %v", err)
	}
	off := int64(-1)
	if o, ok := resp.Lookup(topic, 0); ok {
		if o.Err != nil {
			die("fetch offsets: %v", o.Err)
		}
		off = o.At
	}
	fmt.Printf("committed\t%d\n", off)
	cl.LeaveGroup()
	cl.Close()
}
