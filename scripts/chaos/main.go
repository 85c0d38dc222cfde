// Command chaos drives scripts/chaos.sh: N create_incident_ticket writes, each
// with its own idempotency key, retried through a load balancer until each has a
// definite outcome, while the script kills and restarts the replicas behind it.
// Then it checks the outcomes against the tickets the replicas journaled:
// no key has two tickets (0 duplicate side effects), every receipt names the
// journaled ticket of its key and replays identically once the replicas are
// back (0 lost receipts), and every key ends as a receipt, outcome_unknown or a
// definite error (every outcome accounted for).
//
// usage: go run ./scripts/chaos -url URL -journal FILE -n 300 -c 8 -ready FILE
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/examples/incidents/incidentsclient"
)

func main() {
	url := flag.String("url", "", "the load balancer's MCP endpoint")
	journal := flag.String("journal", "", "the replicas' ticket journal (INCIDENTS_JOURNAL)")
	n := flag.Int("n", 300, "writes")
	conc := flag.Int("c", 8, "writes in flight")
	stop := flag.String("stop", "", "file to create when the writes are done (the killer stops)")
	flag.Parse()
	run := time.Now().UnixNano()
	outcomes := make([]outcome, *n)
	var next, attempts atomic.Int64
	start := time.Now()
	var wg sync.WaitGroup
	for range *conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= *n {
					return
				}
				outcomes[i] = write(*url, fmt.Sprintf("chaos-%d-%05d", run, i), &attempts)
			}
		}()
	}
	wg.Wait()
	took := time.Since(start)
	if *stop != "" {
		os.WriteFile(*stop, nil, 0o644)
	}
	os.Exit(check(*url, *journal, outcomes, attempts.Load(), took))
}

// An outcome is how one write ended.
type outcome struct {
	key      string
	kind     string // receipt, outcome_unknown, error:CODE, unresolved
	ticket   string // the receipt's external id
	result   json.RawMessage
	attempts int
}

// write sends one write until it has a definite outcome: transport failures,
// 5xx, in_progress and unavailable are retried with the same key.
func write(url, key string, attempts *atomic.Int64) outcome {
	o := outcome{key: key, kind: "unresolved"}
	args := map[string]any{"title": "Payments timeouts " + key, "severity": "P1",
		"evidence_ids": []string{"status-payments-0001"}, "idempotency_key": key}
	pause := 20 * time.Millisecond
	for o.attempts < 400 {
		o.attempts++
		attempts.Add(1)
		res, err := post(url, args)
		if err == nil {
			var r result
			if err = json.Unmarshal(res, &r); err == nil {
				switch {
				case !r.IsError && r.Meta.Receipt != nil:
					o.kind, o.ticket, o.result = "receipt", r.Meta.Receipt.ExternalID, res
					return o
				case r.Meta.Error == nil:
					o.kind = "error:uncoded"
					return o
				case r.Meta.Error.Code == "outcome_unknown":
					o.kind = "outcome_unknown"
					return o
				case r.Meta.Error.Code == "in_progress" || r.Meta.Error.Code == "unavailable":
				default:
					o.kind = "error:" + r.Meta.Error.Code
					return o
				}
			}
		}
		time.Sleep(pause)
		pause = min(2*pause, 500*time.Millisecond)
	}
	return o
}

// result is what the driver reads of a CallToolResult.
type result struct {
	IsError bool `json:"isError"`
	Meta    struct {
		Receipt *struct {
			ExternalID string `json:"external_id"`
			ActionID   string `json:"action_id"`
		} `json:"dev.mcpgen/receipt"`
		Error *struct {
			Code string `json:"code"`
		} `json:"dev.mcpgen/error"`
	} `json:"_meta"`
}

var client = &http.Client{Timeout: 30 * time.Second}

// post sends one create_incident_ticket write, confirming its consent question.
func post(url string, args map[string]any) (json.RawMessage, error) {
	return incidentsclient.CreateTicket(client, url, args)
}

// check compares the outcomes with the journal, prints the figures and returns
// the exit code.
func check(url, journal string, outcomes []outcome, attempts int64, took time.Duration) int {
	tickets := map[string][]string{} // key -> ticket ids
	b, err := os.ReadFile(journal)
	if err != nil && !os.IsNotExist(err) {
		fmt.Fprintln(os.Stderr, "chaos:", err)
		return 2
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e struct {
			TicketID       string `json:"ticket_id"`
			IdempotencyKey string `json:"idempotency_key"`
		}
		if json.Unmarshal([]byte(line), &e) == nil && e.IdempotencyKey != "" {
			tickets[e.IdempotencyKey] = append(tickets[e.IdempotencyKey], e.TicketID)
		}
	}
	kinds := map[string]int{}
	var dup, lost, unresolved, unknownWithTicket, replayMismatch int
	for _, o := range outcomes {
		kinds[o.kind]++
		ts := tickets[o.key]
		if len(ts) > 1 {
			dup++
			fmt.Printf("DUPLICATE: key %s has tickets %v\n", o.key, ts)
		}
		switch {
		case o.kind == "receipt":
			if len(ts) != 1 || ts[0] != o.ticket {
				lost++
				fmt.Printf("LOST RECEIPT: key %s got %s, journal has %v\n", o.key, o.ticket, ts)
			} else if again, err := post(url, map[string]any{"title": "Payments timeouts " + o.key, "severity": "P1",
				"evidence_ids": []string{"status-payments-0001"}, "idempotency_key": o.key}); err != nil || !bytes.Equal(again, o.result) {
				replayMismatch++
				fmt.Printf("REPLAY MISMATCH: key %s: %v\n%s\n%s\n", o.key, err, o.result, again)
			}
		case o.kind == "outcome_unknown":
			if len(ts) == 1 {
				unknownWithTicket++
			}
		case o.kind == "unresolved":
			unresolved++
		default: // a definite error: no ticket may exist
			if len(ts) > 0 {
				lost++
				fmt.Printf("LOST RECEIPT: key %s ended %s, journal has %v\n", o.key, o.kind, ts)
			}
		}
	}
	var names []string
	for k := range kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	fmt.Printf("chaos: %d writes, %d attempts in %.1fs; outcomes:", len(outcomes), attempts, took.Seconds())
	for _, k := range names {
		fmt.Printf(" %s=%d", k, kinds[k])
	}
	fmt.Printf("\nchaos: duplicate side effects %d, lost receipts %d, replay mismatches %d, unresolved %d, outcome_unknown with a ticket %d\n",
		dup, lost, replayMismatch, unresolved, unknownWithTicket)
	if dup+lost+replayMismatch+unresolved > 0 {
		return 1
	}
	return 0
}
