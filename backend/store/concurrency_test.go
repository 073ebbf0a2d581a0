package store

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"
)

// addMany adds n entries for target from workers goroutines and returns the first error.
func addMany(ctx context.Context, st *Store, target string, n, workers int) error {
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				_, err := st.AddHistory(ctx, HistoryEntry{Target: target, After: []string{fmt.Sprintf("plugins/p%d", i)}, Actor: "cli"})
				if err != nil {
					errs <- fmt.Errorf("%s entry %d: %w", target, i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

func TestTwoStoresOnOneFile(t *testing.T) {
	// Two *Store on the same file behave as two processes would: separate pools,
	// separate connections, one file.
	home := t.TempDir()
	a, b := openTestStore(t, home), openTestStore(t, home)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, st := range []*Store{a, b} {
		wg.Go(func() { errs[i] = addMany(ctx, st, fmt.Sprintf("agent:%d", i), 200, 4) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("store %d: %v", i, err)
		}
	}
	for _, st := range []*Store{a, b} {
		if n := countHistory(t, st, ""); n != 400 {
			t.Errorf("History() = %d entries, want 400", n)
		}
		if n := countHistory(t, st, "agent:1"); n != 200 {
			t.Errorf("History(agent:1) = %d entries, want 200", n)
		}
	}
}

func TestReaderDoesNotBlockWriter(t *testing.T) {
	home := t.TempDir()
	reader, writer := openTestStore(t, home), openTestStore(t, home)
	ctx := context.Background()
	if err := addMany(ctx, writer, "agent:a", 5, 1); err != nil {
		t.Fatal(err)
	}
	rows, err := reader.db.QueryContext(ctx, `SELECT id FROM history`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if !rows.Next() { // the read transaction is open now
		t.Fatal("no rows")
	}
	start := time.Now()
	if _, err := writer.AddHistory(ctx, HistoryEntry{Target: "agent:b"}); err != nil {
		t.Fatalf("AddHistory during an open read: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("AddHistory during an open read took %v; it waited for the reader", d)
	}
}

// helperEnv names the Plugboard home the helper process writes to; set only when
// a test re-runs this binary as a second process.
const helperEnv = "PLUGBOARD_STORE_HELPER_HOME"

// TestHelperProcess is not a test: run by TestTwoProcesses as a second process, it
// adds PLUGBOARD_STORE_HELPER_N entries for agent:child and exits.
func TestHelperProcess(t *testing.T) {
	home := os.Getenv(helperEnv)
	if home == "" {
		return
	}
	n, _ := strconv.Atoi(os.Getenv("PLUGBOARD_STORE_HELPER_N"))
	ctx := context.Background()
	st, _, err := Open(ctx, home)
	if err == nil {
		err = addMany(ctx, st, "agent:child", n, 2)
		if cerr := st.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func TestTwoProcesses(t *testing.T) {
	const n = 200
	home := t.TempDir()
	st := openTestStore(t, home)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+home, "PLUGBOARD_STORE_HELPER_N="+strconv.Itoa(n))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	// Start writing once the child has written, so that both write at once.
	var childErr error
	exited := false
wait:
	for countHistory(t, st, "agent:child") == 0 {
		select {
		case childErr = <-done:
			exited = true
			break wait
		case <-ctx.Done():
			t.Fatal("the helper process wrote nothing in time")
		case <-time.After(5 * time.Millisecond):
		}
	}
	if err := addMany(ctx, st, "agent:parent", n, 2); err != nil {
		t.Errorf("this process: %v", err)
	}
	if !exited {
		childErr = <-done
	}
	if childErr != nil {
		t.Fatalf("helper process: %v\n%s", childErr, out.Bytes())
	}
	if all, err := st.History(ctx, "", 0); err == nil {
		switches := 0
		for i := 1; i < len(all); i++ {
			if all[i].Target != all[i-1].Target {
				switches++
			}
		}
		t.Logf("the two processes' entries alternate %d times in id order", switches)
	}
	for target, want := range map[string]int{"agent:child": n, "agent:parent": n, "": 2 * n} {
		if got := countHistory(t, st, target); got != want {
			t.Errorf("History(%q) = %d entries, want %d", target, got, want)
		}
	}
}
