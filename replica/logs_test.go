package replica

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Litestream's error about a failed sync, which carries a duration, reaches
// PocketBase's logs (the dashboard's), its duration as text, and is the
// replication's last error.
func TestLitestreamErrorLogged(t *testing.T) {
	app := bareApp(t)
	app.Settings().Logs.MaxDays = 1 // a test app keeps no logs otherwise
	last := &lastError{}
	log := slog.New(errorMemory{Handler: appLogs(app), last: last})
	log.Error("sync error", "db", "data.db", "error", "disk full", "backoff", 250*time.Millisecond)

	var logged []*core.Log
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		logged = nil
		if err := app.LogQuery().AndWhere(dbx.HashExp{"message": "sync error"}).All(&logged); err != nil {
			t.Fatal(err)
		}
		if len(logged) > 0 {
			break
		}
	}
	if len(logged) != 1 {
		t.Fatalf("%d logs of the sync error; want 1", len(logged))
	}
	if got := logged[0].Data["backoff"]; got != "250ms" {
		t.Errorf("backoff logged as %#v; want \"250ms\"", got)
	}
	if msg, _ := last.get(); !strings.Contains(msg, "sync error: disk full") {
		t.Errorf("last error %q", msg)
	}
}
