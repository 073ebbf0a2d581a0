// Command readfloor is the floor the catalog benchmark compares against: it does the
// least reading `plugboard catalog` does in a benchmark home, and nothing with what it
// reads. It lists every folder the catalog reads in (plugins/, each plugin folder, its
// skills/ and each skill folder: the specification's checks of a skill's files need the
// listing) and reads exactly the files the catalog reads (plugin.json, mcp.json, each
// skills/*/SKILL.md), on the same number of goroutines. It uses the system calls alone
// (open, getdents, read, close) with one buffer per goroutine: no os.File, no allocation
// per file. A catalog cannot be faster than this.
package main

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"syscall"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: readfloor PLUGBOARD_HOME")
		os.Exit(2)
	}
	bytes, names, err := scan(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Println(bytes, names)
}

// Goroutines is how many the floor reads on: as many as the catalog's package loads
// (backend/catalog: loadAll), four a CPU.
func goroutines() int { return 4 * runtime.GOMAXPROCS(0) }

// scan lists and reads the home's plugins and returns the bytes read and the names
// listed.
func scan(home string) (int, int, error) {
	plugins := home + "/plugins"
	names, err := list(plugins, make([]byte, 64<<10), nil)
	if err != nil {
		return 0, 0, err
	}
	next := make(chan string, 64)
	var wg sync.WaitGroup
	var mu sync.Mutex
	total, listed := 0, len(names)
	for range goroutines() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 64<<10)
			dbuf := make([]byte, 16<<10)
			var entries, skills []string
			n, l := 0, 0
			for dir := range next {
				entries, _ = list(dir, dbuf, entries[:0])
				n += readFile(dir+"/plugin.json", buf)
				n += readFile(dir+"/mcp.json", buf)
				skills, _ = list(dir+"/skills", dbuf, skills[:0])
				l += len(entries) + len(skills)
				for _, s := range skills {
					entries, _ = list(dir+"/skills/"+s, dbuf, entries[:0])
					l += len(entries)
					n += readFile(dir+"/skills/"+s+"/SKILL.md", buf)
				}
			}
			mu.Lock()
			total += n
			listed += l
			mu.Unlock()
		}()
	}
	for _, name := range names {
		next <- plugins + "/" + name
	}
	close(next)
	wg.Wait()
	return total, listed, nil
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
