package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/plugboard/plugboard/backend/activity"
	"github.com/plugboard/plugboard/backend/runtime"
	"github.com/plugboard/plugboard/backend/store"
	"github.com/plugboard/plugboard/backend/testhome"
)

// benchBinary is testBinary for a benchmark: the same build, made once for the package.
func benchBinary(b *testing.B) string {
	b.Helper()
	return builtBinary(b)
}

// recordHome is a Plugboard home with a database and a projection's activity index, as
// a launch leaves them; it returns the index's path.
func recordHome(b *testing.B) (pb, index string) {
	b.Helper()
	pb = filepath.Join(b.TempDir(), ".plugboard")
	st, _, err := store.Open(context.Background(), pb)
	if err != nil {
		b.Fatal(err)
	}
	st.Close()
	index = filepath.Join(pb, "runtime", "claude", "0123456789abcdef0123456789abcdef", runtime.ActivityIndexFile)
	testhome.WriteFile(b, index, `{"v": 1, "home": "`+pb+`", "backend": "claude", "fingerprint": "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
  "skills": {"kit:brief": {"plugin": "kit", "version": "1.0.0", "hash": "sha256:fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"}}}`)
	return pb, index
}

// skillHook is the PostToolUse input Claude Code 2.1.197 gives the hook for a Skill call
// (as seen from the real claude), with the call's id i.
func skillHook(i int) []byte {
	return fmt.Appendf(nil, `{"session_id":"eb9bb451-a3c0-40d2-aabc-a1b2d9182347","transcript_path":"/home/u/.claude/projects/-w/eb9bb451-a3c0-40d2-aabc-a1b2d9182347.jsonl","cwd":"/w","prompt_id":"d039bcc3-3053-467d-8a54-f2df8b6696ee","permission_mode":"default","effort":{"level":"high"},"hook_event_name":"PostToolUse","tool_name":"Skill","tool_input":{"skill":"kit:brief","args":"some arguments"},"tool_response":{"success":true,"commandName":"kit:brief"},"tool_use_id":"toolu_bench_%d","duration_ms":13}`, i)
}

// BenchmarkActivityRecord measures what a skill invocation costs the agent that waits for
// its hook: one whole "plugboard activity record" process, from start to exit, as Claude
// starts it (directly, and through bash, which runs a hook's command string), beside
// the floor of any plugboard process ("plugboard help") and the record alone, in process
// (alone on the database, and beside another open connection).
// Every record is a new row (a new call id) in a database with no other connection.
func BenchmarkActivityRecord(b *testing.B) {
	bin := benchBinary(b)
	pb, index := recordHome(b)
	env := []string{"HOME=" + filepath.Dir(pb), "PATH=" + os.Getenv("PATH"), runtime.ActivityTargetEnv + "=agent:coder"}
	n := 0
	run := func(b *testing.B, argv ...string) {
		for b.Loop() {
			n++
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Env, cmd.Stdin = env, bytes.NewReader(skillHook(n))
			if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
				b.Fatalf("%v: %v: %s", argv, err, out)
			}
		}
	}
	b.Run("process", func(b *testing.B) { run(b, bin, "activity", "record", index) })
	b.Run("process-via-shell", func(b *testing.B) {
		shell, err := exec.LookPath("bash") // what Claude Code runs a hook's command with
		if err != nil {
			shell = "/bin/sh"
		}
		run(b, shell, "-c", runtime.ShellQuote([]string{bin, "activity", "record", index}))
	})
	b.Run("floor-plugboard-help", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command(bin, "help").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	getenv := func(k string) string {
		if k == runtime.ActivityTargetEnv {
			return "agent:coder"
		}
		return ""
	}
	inProcess := func(b *testing.B) {
		for b.Loop() {
			n++
			out, err := activity.Record(context.Background(), index, bytes.NewReader(skillHook(n)), getenv)
			if err != nil || !out.Recorded || out.Spooled {
				b.Fatalf("Record = %+v, %v; want written", out, err)
			}
		}
	}
	b.Run("in-process", inProcess)
	// With another connection open (the desktop app, a watch), the last-connection
	// checkpoint on close and the WAL's re-creation on open do not happen.
	b.Run("in-process-database-open-elsewhere", func(b *testing.B) {
		st, _, err := store.Open(context.Background(), pb)
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		inProcess(b)
	})
	st, _, err := store.Open(context.Background(), pb)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	recs, err := st.Activity(context.Background(), time.Time{})
	if err != nil || len(recs) != n {
		b.Fatalf("%d rows, %v; want %d (every record kept, none spooled)", len(recs), err, n)
	}
}
