package main

import "syscall"

// childAttr makes the kernel kill a child (the server, an import) when the
// harness itself dies, even by SIGKILL, so no server outlives a run.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
