package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/plugboard/plugboard/backend/jsonfile"
	"github.com/plugboard/plugboard/backend/mcpconfig"
	"github.com/plugboard/plugboard/backend/mcptap"
)

// Starter readies the start of an agent while its plan is built. The first
// signal.Notify of a process starts the Go runtime's signal thread (0.4–0.7 ms on this
// project's machine) and the first start of a process checks that pidfd works with a
// fork of its own (0.3 ms); a Starter does both on another goroutine, so that a launch
// pays for them on the other core rather than between its plan and the agent's exec.
// From NewStarter on, SIGTERM and SIGHUP are caught for Run to forward to the agent;
// one caught before the agent starts stops the launch before it starts.
type Starter struct {
	fwd   chan os.Signal
	ready chan struct{}
}

// NewStarter starts readying; Run waits until it is ready before it starts the agent.
func NewStarter() *Starter {
	s := &Starter{fwd: make(chan os.Signal, 2), ready: make(chan struct{})}
	go func() {
		defer close(s.ready)
		signal.Notify(s.fwd, syscall.SIGTERM, syscall.SIGHUP)
		if self, err := os.FindProcess(os.Getpid()); err == nil {
			_ = self.Release() // only the check mattered
		}
	}()
	return s
}

// Stop stops catching the signals, for a launch that ends without Run.
func (s *Starter) Stop() {
	<-s.ready
	signal.Stop(s.fwd)
}

// Run starts the plan's agent in the foreground with the given standard streams and
// waits for it. The agent shares the terminal: Ctrl-C reaches it directly (same process
// group), so Run ignores SIGINT and SIGQUIT while it waits and forwards SIGTERM and
// SIGHUP (caught from NewStarter on; nil: from now). It returns the agent's exit status,
// or 128+n when signal n came before the agent started.
func Run(ctx context.Context, p *Plan, st *Starter, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	if st == nil {
		st = NewStarter()
	}
	defer st.Stop()
	bin, err := exec.LookPath(p.Argv[0])
	if err != nil {
		return 127, fmt.Errorf("%s: %w (install it, or give its path with --bin)", p.Argv[0], err)
	}
	cmd := exec.CommandContext(ctx, bin, p.Argv[1:]...)
	cmd.Env = p.Env(os.Environ())
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	cmd.WaitDelay = 2 * time.Second // when the agent exits, a child still holding a pipe does not hold the launch
	signal.Ignore(syscall.SIGINT, syscall.SIGQUIT)
	defer signal.Reset(syscall.SIGINT, syscall.SIGQUIT)
	<-st.ready
	select {
	case s := <-st.fwd:
		n, _ := s.(syscall.Signal)
		return 128 + int(n), fmt.Errorf("%v before the agent started; it was not started", s)
	default:
	}
	if err := cmd.Start(); err != nil {
		return 126, err
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case s := <-st.fwd:
				_ = cmd.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	return mcptap.ExitStatus(cmd.Wait())
}

// ExecStdio is "plugboard mcp-stdio --config FILE": it reads the private file a launch
// wrote for one stdio server (StdioConfig), changes to the server's cwd, adds its env
// (PLUGIN_ROOT and PLUGIN_DATA last, as normalised) to the environment it was given, and
// starts the server, found with the executable search of that environment. So the client
// starts the server where spec §7.2.1 says, with its args and env exactly as normalised.
//
// When the file names the server for activity records (StdioConfig.Activity), the server
// runs as this process's child and every tools/call relayed to it is counted
// (mcptap.RunStdio): stdin and stdout are relayed byte for byte, SIGTERM, SIGINT and
// SIGHUP are forwarded, and the returned code is the server's exit status (128+n for a
// signal n) once the calls counted are written, or given up on after stdioFlushWait.
// The records carry the target and the try's run from the environment (ActivityTargetEnv,
// ActivityRunEnv). Without Activity this process is replaced with the server, and
// ExecStdio returns only on failure, with 127.
//
// The file holds the server's env, so it is read as a private file
// (jsonfile.ReadPrivate, the check mcp-proxy makes on its config): a file that is not a
// regular file (a symlink included) or that group or others may read or write is
// refused, naming the file and the fix, before anything else is done.
func ExecStdio(file string) (int, error) {
	data, err := jsonfile.ReadPrivate(file, jsonfile.Private{Max: 1 << 20, Holds: "the server's command and env",
		Fix: "point --config at the file the launcher wrote"})
	if err != nil {
		return 127, fmt.Errorf("config %s: %w", file, err)
	}
	var c StdioConfig
	if err := json.Unmarshal(data, &c); err != nil || c.Command == "" {
		return 127, fmt.Errorf("%s is not a stdio server config: %v", file, err)
	}
	if c.EnvRefs {
		c.expandEnvRefs(os.LookupEnv)
	}
	if err := os.Chdir(c.Cwd); err != nil {
		return 127, fmt.Errorf("working folder: %w", err)
	}
	env := overlay(os.Environ(), c.Env)
	bin := c.Command
	if !strings.Contains(bin, "/") {
		// The search uses the PATH the server will run with.
		path := ""
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, "PATH="); ok {
				path = v
			}
		}
		if bin, err = lookPathIn(c.Command, path); err != nil {
			return 127, err
		}
	}
	argv := append([]string{c.Command}, c.Args...)
	if c.Activity == nil {
		return 127, syscall.Exec(bin, argv, env)
	}
	const who = "plugboard mcp-stdio"
	rec := mcptap.NewRecorder(*c.Activity, os.Getenv(ActivityTargetEnv), os.Getenv(ActivityRunEnv), who, os.Stderr)
	rec.Wait = mcptap.AnswerWait
	code, err := mcptap.RunStdio(mcptap.Child{Path: bin, Argv: argv, Env: env}, os.Stdin, os.Stdout, rec, who, os.Stderr)
	rec.Close(stdioFlushWait)
	return code, err
}

// stdioFlushWait bounds how long mcp-stdio waits, once its server has exited, for the
// calls it counted to be written: the client waits for it to exit.
const stdioFlushWait = 2 * time.Second

// expandEnvRefs resolves the environment references of a Cursor server's command, args
// and env values (mcpconfig.ExpandEnvRefs) with lookup, the environment it was started in.
func (c *StdioConfig) expandEnvRefs(lookup func(string) (string, bool)) {
	c.Command = mcpconfig.ExpandEnvRefs(c.Command, lookup)
	for i, a := range c.Args {
		c.Args[i] = mcpconfig.ExpandEnvRefs(a, lookup)
	}
	for k, v := range c.Env {
		if !LocationVar(k) {
			c.Env[k] = mcpconfig.ExpandEnvRefs(v, lookup)
		}
	}
}

// LocationVar reports whether k is a variable the launch itself sets in a stdio server's
// env to say where the plugin lives (PLUGIN_ROOT, PLUGIN_DATA, CURSOR_PLUGIN_ROOT): a
// path, never a secret of the package.
func LocationVar(k string) bool {
	return k == "PLUGIN_ROOT" || k == "PLUGIN_DATA" || k == "CURSOR_PLUGIN_ROOT"
}

// overlay sets vars over base, removing base's entries of the same names (a process
// reading its environment takes the first of two, so duplicates would undo the overlay).
// PLUGIN_ROOT and PLUGIN_DATA come last, after the configured env (spec §9.1).
func overlay(base []string, vars map[string]string) []string {
	out := make([]string, 0, len(base)+len(vars))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if _, set := vars[k]; !set {
			out = append(out, kv)
		}
	}
	keys := make([]string, 0, len(vars))
	for k := range vars {
		if k != "PLUGIN_ROOT" && k != "PLUGIN_DATA" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range append(keys, "PLUGIN_ROOT", "PLUGIN_DATA") {
		if v, ok := vars[k]; ok {
			out = append(out, k+"="+v)
		}
	}
	return out
}

// lookPathIn finds an executable name in a PATH value.
func lookPathIn(name, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: %w", name, exec.ErrNotFound)
}

// FromEnv fills in what the environment says about the agents: PLUGBOARD_CLAUDE_BIN,
// PLUGBOARD_PI_BIN, PLUGBOARD_CODEX_BIN and PLUGBOARD_COPILOT_BIN name their executables, PLUGBOARD_PI_MCP_ADAPTER PI's MCP bridge.
// The CLI and the page's Launch read the same variables through it.
func (r *Request) FromEnv(getenv func(string) string) {
	r.Bins = map[string]string{}
	for _, b := range Backends {
		if v := getenv("PLUGBOARD_" + strings.ToUpper(b) + "_BIN"); v != "" {
			r.Bins[b] = v
		}
	}
	r.PIMCPAdapter = getenv("PLUGBOARD_PI_MCP_ADAPTER")
	r.Getenv = getenv
}

// ShellQuote renders argv as one line a POSIX shell reads back as the same words, for
// showing the exact command.
func ShellQuote(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && !strings.ContainsFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r))
		}) {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}
