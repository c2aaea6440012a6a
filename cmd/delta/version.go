package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"
)

// version describes the build from what the Go toolchain stamped into the
// binary: the module version (a tag for `go install …@v1.2.3`, "(devel)"
// for a build from a checkout) and the VCS revision, which `go build`
// records in a git checkout and `go install …@version` and `go test` do
// not.
func version(info *debug.BuildInfo, ok bool) string {
	if !ok || info == nil {
		return "unknown (built without module information)"
	}
	v := info.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	var rev, at string
	modified := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		// A tagged release names its commit in its version already.
		return v + " (no VCS revision recorded)"
	}
	parts := []string{"revision " + rev}
	if at != "" {
		parts = append(parts, at)
	}
	if modified {
		parts = append(parts, "with uncommitted changes")
	}
	return fmt.Sprintf("%s (%s)", v, strings.Join(parts, ", "))
}

// buildVersion is the version of the running binary.
func buildVersion() string { return version(debug.ReadBuildInfo()) }

func init() {
	cli.VersionPrinter = func(c *cli.Context) {
		fmt.Fprintf(c.App.Writer, "%s %s\n", c.App.Name, c.App.Version)
	}
}
