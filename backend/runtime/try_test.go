package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A launch of plugin folders (plugboard try DIR) projects exactly those folders, with the
// backend asked for (Claude when none is), under a target id of its own.
func TestBuildDirs(t *testing.T) {
	pb := home(t)
	req := Request{Home: filepath.Dir(pb), PlugboardHome: pb, Dirs: []string{filepath.Join(pb, "plugins", "review")},
		Target: "coder", Self: "/opt/plugboard/bin/plugboard"}
	p := build(t, req)
	if p.Target != "dir:"+filepath.Join(pb, "plugins", "review") || p.Backend != Claude || len(p.Plugins) != 1 || p.Plugins[0].ID != "review" {
		t.Errorf("plan of a folder: target %s, backend %s, plugins %+v; want that folder alone, for claude", p.Target, p.Backend, p.Plugins)
	}
	coder := build(t, request(pb, "coder"))
	if p.Fingerprint == coder.Fingerprint {
		t.Error("the folder alone has the fingerprint of agent:coder's set")
	}
	req.Backend = PI
	if p := build(t, req); p.Backend != PI || !slices.Contains(p.Skills, "check") {
		t.Errorf("plan of a folder for pi: backend %s, skills %v", p.Backend, p.Skills)
	}
	req.Backend = "cursor"
	if _, err := Build(req); !errors.Is(err, ErrTarget) {
		t.Errorf("an unknown backend for a folder: %v", err)
	}
}

// SetEnv adds a variable to the agent's environment once, by name, never to the JSON.
func TestPlanSetEnv(t *testing.T) {
	p := build(t, request(home(t), "coder"))
	p.SetEnv(ActivityRunEnv, "run-1")
	p.SetEnv(ActivityRunEnv, "run-2")
	env := p.Env([]string{"HOME=/h"})
	var got []string
	for _, kv := range env {
		if strings.HasPrefix(kv, ActivityRunEnv+"=") {
			got = append(got, kv)
		}
	}
	if len(got) != 1 || got[0] != ActivityRunEnv+"=run-2" {
		t.Errorf("environment holds %v, want only the last value", got)
	}
	if n := strings.Count(strings.Join(p.EnvKeys, ","), ActivityRunEnv); n != 1 {
		t.Errorf("EnvKeys %v name %s %d times", p.EnvKeys, ActivityRunEnv, n)
	}
	if b, _ := json.Marshal(p); strings.Contains(string(b), "run-2") {
		t.Errorf("the plan's JSON holds the value: %s", b)
	}
}

// Converse hands one caller the session's streams and counts the turns; a context that
// ends while the agent is silent closes the session, and the error says so.
func TestSessionConverse(t *testing.T) {
	bin, _ := standIn(t)
	req := request(home(t), "coder")
	req.Bin = bin
	pool := &Pool{}
	defer pool.Close()
	s, err := pool.Get(context.Background(), build(t, req))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		err := s.Converse(context.Background(), func(c *Conn, before int) error {
			if before != i {
				t.Errorf("turn %d: %d turns before", i, before)
			}
			if err := c.Write([]byte("hello " + strconv.Itoa(i))); err != nil {
				return err
			}
			line, err := c.Read()
			if want := strconv.Itoa(s.PID) + " hello " + strconv.Itoa(i) + "\n"; string(line) != want {
				t.Errorf("turn %d: read %q, %v; want %q", i, line, err, want)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	err = s.Converse(ctx, func(c *Conn, _ int) error {
		cancel() // the agent answers nothing unasked: this Read waits until the session is closed
		_, err := c.Read()
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "did not finish in time") || s.alive() {
		t.Errorf("Converse after its context ended = %v, session alive %v; want the session closed and said", err, s.alive())
	}
}

// A pool with Idle stops a session nobody used for that long, and keeps a busy one.
func TestPoolStopsIdleSessions(t *testing.T) {
	bin, _ := standIn(t)
	req := request(home(t), "coder")
	req.Bin = bin
	pool := &Pool{Idle: time.Hour} // its own timer does not fire in the test: reap is called with a later time
	defer pool.Close()
	plan := build(t, req)
	busy, err := pool.Get(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	req.Mode = ModeBenchmark
	idle, err := pool.Get(context.Background(), build(t, req))
	if err != nil {
		t.Fatal(err)
	}
	// Two hours on, the busy session is in a turn: the idle one is stopped, the busy one
	// kept.
	err = busy.Converse(context.Background(), func(*Conn, int) error {
		pool.reap(time.Now().Add(2 * time.Hour))
		<-idle.exited
		if n := pool.Len(); n != 1 || !busy.alive() {
			t.Errorf("pool holds %d sessions, busy one alive %v; want the busy one alone", n, busy.alive())
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}
