//go:build unix

package resident

import (
	"os"
	"syscall"
)

// ownedByMe reports whether this process's user owns the file.
func ownedByMe(st os.FileInfo) bool {
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(sys.Uid) == os.Getuid()
}

// detached makes a spawned server its own session, out of the spawning
// command's process group and terminal, so that it outlives the command
// and is not sent the terminal's signals.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// supported says that this system has what a server needs.
const supported = true
