package catalog

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The catalog, and with it inspect, catalog and skills, builds and runs without cgo: it
// depends neither on backend/store nor on its SQLite driver (github.com/mattn/go-sqlite3,
// C compiled with cgo), nor on any other package outside the standard library that has
// cgo files. Snapshot rows are backend/snapshot's type for that reason (snapshot.go).
// The tests are held to the same rule, so that CGO_ENABLED=0 go test ./backend/catalog
// works too. The Makefile's test-static target builds the whole binary with
// CGO_ENABLED=0 and runs inspect with it.
func TestNoStoreDependency(t *testing.T) {
	forbidden := []string{"github.com/plugboard/plugboard/backend/store", "github.com/mattn/go-sqlite3"}
	for _, test := range []bool{false, true} {
		args := []string{"list", "-deps", "-f", "{{.ImportPath}}\t{{.Standard}}\t{{len .CgoFiles}}"}
		if test {
			args = append(args, "-test")
		}
		cmd := exec.Command("go", append(args, ".")...)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=1") // list the cgo files a cgo build would compile
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr(err))
		}
		n := 0
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Split(line, "\t")
			if len(f) != 3 {
				t.Fatalf("go list printed %q", line)
			}
			n++
			path, _, _ := strings.Cut(f[0], " ") // "p [p.test]": p as its tests build it
			for _, bad := range forbidden {
				if path == bad || strings.HasPrefix(path, bad+"/") {
					t.Errorf("backend/catalog (tests %v) depends on %s, which needs cgo; keep the store out of the catalog (see backend/snapshot)", test, path)
				}
			}
			if f[1] == "false" && f[2] != "0" {
				t.Errorf("backend/catalog (tests %v) depends on %s, which has cgo files", test, path)
			}
		}
		if n < 10 {
			t.Fatalf("go list -deps listed %d packages; want the catalog's dependencies:\n%s", n, out)
		}
	}
}

func stderr(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}
