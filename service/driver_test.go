package service

import (
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"
)

// TestSQLiteDriverHasItsLibc checks what PocketBase's own check of the
// SQLite driver (unbound in New) protects: modernc.org/libc does not follow
// semantic versioning, so the build must use exactly the version that the
// modernc.org/sqlite it uses requires.
func TestSQLiteDriverHasItsLibc(t *testing.T) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("no build information in the test binary")
	}
	built := map[string]string{}
	for _, dep := range info.Deps {
		built[dep.Path] = dep.Version
	}
	driver, libc := built["modernc.org/sqlite"], built["modernc.org/libc"]
	if driver == "" || libc == "" {
		t.Fatalf("the build has modernc.org/sqlite %q and modernc.org/libc %q, want both", driver, libc)
	}
	out, err := exec.Command("go", "mod", "graph").Output()
	if err != nil {
		t.Fatalf("go mod graph: %v", err)
	}
	var required string
	for line := range strings.Lines(string(out)) {
		from, to, _ := strings.Cut(strings.TrimSpace(line), " ")
		if from == "modernc.org/sqlite@"+driver && strings.HasPrefix(to, "modernc.org/libc@") {
			required = strings.TrimPrefix(to, "modernc.org/libc@")
		}
	}
	if required == "" {
		t.Fatalf("go mod graph names no modernc.org/libc required by modernc.org/sqlite %s", driver)
	}
	if libc != required {
		t.Errorf("the build uses modernc.org/libc %s, but modernc.org/sqlite %s requires %s: pin that version in go.mod", libc, driver, required)
	}
}
