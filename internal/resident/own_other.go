//go:build !unix

package resident

import (
	"os"
	"syscall"
)

func ownedByMe(os.FileInfo) bool { return false }

func detached() *syscall.SysProcAttr { return nil }

// supported is false: the resident server is built on Unix sockets and
// flock; elsewhere every command does its own work.
const supported = false
