package replica_test

import (
	"archive/zip"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/replica"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/tests"
)

// The status route is the operators': superusers only; without replication
// it says so.
func TestStatusRouteWithoutReplication(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	h := fixture.Serve(t, app)
	for _, c := range []struct {
		name, header, value string
		status              int
		body                string
	}{
		{"no token", "", "", 401, ""},
		{"an API key", "X-Api-Client-Key", f.A.Keys["both"], 401, ""},
		{"a reviewer", "Authorization", fixture.ReviewerToken(t, app, string(f.A.Org)), 403, ""},
		{"a superuser", "Authorization", fixture.SuperuserToken(t, app), 200, `{"enabled":false,`},
	} {
		rec := fixture.Send(h, http.MethodGet, replica.StatusPath, c.header, c.value, "")
		if rec.Code != c.status || !strings.Contains(rec.Body.String(), c.body) {
			t.Errorf("%s: %d %s, want %d with %s", c.name, rec.Code, rec.Body, c.status, c.body)
		}
	}
}

// With a replica, the server replicates from its start, shows where and how
// far behind, and stops when it stops.
func TestStatusRouteWhileReplicating(t *testing.T) {
	app, err := tests.NewTestApp(fixture.Get(t).Dir)
	if err != nil {
		t.Fatal(err)
	}
	url := "file://" + filepath.Join(t.TempDir(), "replica")
	var out bytes.Buffer
	replica.Register(app, url, &out)
	h := fixture.Serve(t, app)
	if !strings.Contains(out.String(), "Replicating data.db to "+url) {
		t.Errorf("the server's output does not say where it replicates: %q", out.String())
	}
	rec := fixture.Send(h, http.MethodGet, replica.StatusPath, "Authorization", fixture.SuperuserToken(t, app), "")
	var s replica.Status
	if err := json.Unmarshal(rec.Body.Bytes(), &s); err != nil || rec.Code != 200 {
		t.Fatalf("status: %d %s (%v)", rec.Code, rec.Body, err)
	}
	if !s.Enabled || s.Replica != url || s.WindowSeconds != 1 {
		t.Errorf("status while replicating: %+v", s)
	}
	app.Cleanup() // the server stops after its last upload

	restored := filepath.Join(t.TempDir(), "data.db")
	if _, err := replica.Restore(context.Background(), url, restored, time.Time{}); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+restored+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var orgs int
	if err := db.QueryRow("SELECT COUNT(*) FROM " + schema.Organizations).Scan(&orgs); err != nil || orgs != 2 {
		t.Errorf("the replica holds %d organizations (%v), want the fixture's 2", orgs, err)
	}
}

// A dashboard backup leaves Litestream's working files out.
func TestBackupLeavesLitestreamOut(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	ltx := filepath.Join(app.DataDir(), ".data.db-litestream", "ltx", "0")
	if err := os.MkdirAll(ltx, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ltx, "0000000000000001-0000000000000001.ltx"), []byte("pages"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := app.CreateBackup(context.Background(), "test.zip"); err != nil {
		t.Fatal(err)
	}
	z, err := zip.OpenReader(filepath.Join(app.DataDir(), "backups", "test.zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	var names []string
	for _, e := range z.File {
		names = append(names, e.Name)
		if strings.Contains(e.Name, "litestream") {
			t.Errorf("the backup holds %s", e.Name)
		}
	}
	if !slices.Contains(names, "data.db") {
		t.Errorf("the backup holds no data.db: %v", names)
	}
}
