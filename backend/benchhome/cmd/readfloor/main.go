// Command readfloor is the floor the catalog benchmark compares against: it lists and
// reads exactly the files `plugboard catalog` reads in a benchmark home (plugin.json,
// mcp.json, each skills/*/SKILL.md) with the same number of goroutines, and does nothing
// with them. It uses the system calls alone (open, getdents, read, close) with one
// buffer per goroutine: no os.File, no allocation per file. A catalog cannot be faster
// than this.
//
// With -stat, it looks up (lstat) each of those files and the folders that hold them
// instead of reading them, still listing each skills/ folder: the least a catalog that
// kept its results from an earlier scan would have to do to know that nothing changed.
// It is a measure of that design, not a floor of this one.
package main

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"syscall"
)

func main() {
	args := os.Args[1:]
	stat := len(args) == 2 && args[0] == "-stat"
	if stat {
		args = args[1:]
	}
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "usage: readfloor [-stat] PLUGBOARD_HOME")
		os.Exit(2)
	}
	total, err := scan(args[0], stat)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Println(total)
}

// scan reads (or with stat, looks up) the files of the home's plugins on four goroutines
// a CPU and returns the bytes read (or the sizes looked up).
func scan(home string, stat bool) (int, error) {
	plugins := home + "/plugins"
	read := readFile
	if stat {
		read = lookUp
	}
	names, err := list(plugins, make([]byte, 64<<10), nil)
	if err != nil {
		return 0, err
	}
	next := make(chan string, 64)
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for w := 0; w < 4*runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 64<<10)
			dbuf := make([]byte, 16<<10)
			var skills []string
			n := 0
			for dir := range next {
				if stat {
					n += read(dir, buf)
				}
				n += read(dir+"/plugin.json", buf)
				n += read(dir+"/mcp.json", buf)
				skills, _ = list(dir+"/skills", dbuf, skills[:0])
				for _, s := range skills {
					if stat {
						n += read(dir+"/skills/"+s, buf)
					}
					n += read(dir+"/skills/"+s+"/SKILL.md", buf)
				}
			}
			mu.Lock()
			total += n
			mu.Unlock()
		}()
	}
	for _, name := range names {
		next <- plugins + "/" + name
	}
	close(next)
	wg.Wait()
	return total, nil
}

// readFile reads the whole file at path into buf (over and over: only the size is kept)
// and returns its size; 0 when it cannot be opened.
func readFile(path string, buf []byte) int {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0
	}
	n := 0
	for {
		m, err := syscall.Read(fd, buf)
		if m <= 0 || err != nil {
			break
		}
		n += m
	}
	syscall.Close(fd)
	return n
}

// lookUp returns the size lstat gives the file at path (0 when it is not there).
func lookUp(path string, _ []byte) int {
	var st syscall.Stat_t
	if syscall.Lstat(path, &st) != nil {
		return 0
	}
	return int(st.Size)
}

// list appends the names in the folder at path (without . and ..) to names.
func list(path string, buf []byte, names []string) ([]string, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return names, err
	}
	defer syscall.Close(fd)
	for {
		n, err := syscall.ReadDirent(fd, buf)
		if err != nil {
			return names, err
		}
		if n <= 0 {
			return names, nil
		}
		_, _, names = syscall.ParseDirent(buf[:n], -1, names)
	}
}
