// Command readfloor is the floor the catalog benchmark compares against: it lists and
// reads exactly the files `plugboard catalog` reads in a benchmark home (plugin.json,
// mcp.json, each skills/*/SKILL.md) with the same number of goroutines, and does nothing
// with them. It uses the system calls alone (open, getdents, read, close) with one
// buffer per goroutine: no os.File, no allocation per file. A catalog cannot be faster
// than this.
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
	plugins := os.Args[1] + "/plugins"
	dirBuf := make([]byte, 64<<10)
	names, err := list(plugins, dirBuf, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
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
				n += read(dir+"/plugin.json", buf)
				n += read(dir+"/mcp.json", buf)
				skills, _ = list(dir+"/skills", dbuf, skills[:0])
				for _, s := range skills {
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
	fmt.Println(total)
}

// read reads the whole file at path into buf (over and over: only the size is kept) and
// returns its size; 0 when it cannot be opened.
func read(path string, buf []byte) int {
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
