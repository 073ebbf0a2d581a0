package testhome

import (
	"os"
	"strconv"
	"strings"
)

// Alive says whether the process pid runs: it exists and is not a zombie (a killed
// process whose parent has not reaped it yet is dead). Linux (/proc).
func Alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err == nil && !strings.Contains(string(stat), ") Z ")
}

// WithEnv lists the running processes (Alive) whose environment holds name=value: what a
// test started, and its children, found by a variable they inherit. Linux (/proc).
func WithEnv(name, value string) []int {
	want := "\x00" + name + "=" + value + "\x00"
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err == nil && strings.Contains("\x00"+string(env), want) && Alive(pid) {
			out = append(out, pid)
		}
	}
	return out
}
