package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/apikey"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/spf13/cobra"
)

// cmdResult is what one command run printed and returned.
type cmdResult struct {
	stdout, stderr string
	err            error
}

// runCmd executes a freshly built command tree (as main does for each process)
// with args, capturing its output.
func runCmd(newCmd func(core.App) *cobra.Command, app core.App, args ...string) cmdResult {
	c := newCmd(app)
	var out, errOut bytes.Buffer
	c.SetArgs(args)
	c.SetOut(&out)
	c.SetErr(&errOut)
	err := c.Execute()
	return cmdResult{stdout: out.String(), stderr: errOut.String(), err: err}
}

// mustRunCmd is runCmd that fails the test on an error.
func mustRunCmd(t *testing.T, newCmd func(core.App) *cobra.Command, app core.App, args ...string) cmdResult {
	t.Helper()
	r := runCmd(newCmd, app, args...)
	if r.err != nil {
		t.Fatalf("%s: unexpected error %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.err, r.stdout, r.stderr)
	}
	return r
}

// wantCmdErr checks that r failed with an error mentioning want.
func wantCmdErr(t *testing.T, r cmdResult, want string) {
	t.Helper()
	if r.err == nil {
		t.Fatalf("expected an error containing %q, got success; stdout: %q", want, r.stdout)
	}
	if !strings.Contains(r.err.Error(), want) {
		t.Fatalf("error %q does not contain %q", r.err, want)
	}
}

// orgViaCLI makes an organization through the command and returns its id.
func orgViaCLI(t *testing.T, app core.App, name string) string {
	t.Helper()
	return strings.TrimSpace(mustRunCmd(t, orgCommand, app, "create", "--name", name).stdout)
}

// keyViaCLI makes a key through the command (--json) and returns id and key.
func keyViaCLI(t *testing.T, app core.App, args ...string) (int64, string) {
	t.Helper()
	r := mustRunCmd(t, apikeyCommand, app, append([]string{"create", "--json"}, args...)...)
	var got struct {
		ID  int64  `json:"id"`
		Key string `json:"key"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("apikey create --json printed %q: %v", r.stdout, err)
	}
	return got.ID, got.Key
}

func apiClientCount(t *testing.T, app core.App) int {
	t.Helper()
	n, err := app.CountRecords("api_clients")
	if err != nil {
		t.Fatal(err)
	}
	return int(n)
}

func apiClientRecord(t *testing.T, app core.App, id int64) *core.Record {
	t.Helper()
	rec, err := app.FindRecordById("api_clients", strconv.FormatInt(id, 10))
	if err != nil {
		t.Fatalf("api client %d: %v", id, err)
	}
	return rec
}

// assertRawKeyNotStored scans every column of every api_clients row (and every
// other table of the database) for the raw key.
func assertRawKeyNotStored(t *testing.T, app core.App, raw string) {
	t.Helper()
	var tables []string
	if err := app.DB().NewQuery("SELECT name FROM sqlite_master WHERE type = 'table'").Column(&tables); err != nil {
		t.Fatal(err)
	}
	sawClients := false
	for _, table := range tables {
		var rows []dbx.NullStringMap
		if err := app.DB().NewQuery("SELECT * FROM {{" + table + "}}").All(&rows); err != nil {
			t.Fatalf("scan %s: %v", table, err)
		}
		for _, row := range rows {
			for col, v := range row {
				if v.Valid && strings.Contains(v.String, raw) {
					t.Errorf("raw key stored in %s.%s", table, col)
				}
			}
		}
		if table == "api_clients" {
			sawClients = len(rows) > 0
		}
	}
	if !sawClients {
		t.Fatal("api_clients has no rows: the scan proved nothing")
	}
}

func TestOrgCreate(t *testing.T) {
	app := fixture.Empty(t)

	if got := orgViaCLI(t, app, "Acme"); got != "1" {
		t.Errorf("first org create printed %q, want 1", got)
	}

	r := mustRunCmd(t, orgCommand, app, "create", "--name", "  Beta Tools  ", "--json")
	var got map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("--json printed %q: %v", r.stdout, err)
	}
	want := map[string]any{"id": float64(2), "name": "Beta Tools"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("--json printed %v, want %v", got, want)
	}
	if strings.Count(r.stdout, "\n") != 1 {
		t.Errorf("--json output is not one line: %q", r.stdout)
	}

	rec, err := app.FindRecordById("organizations", "2")
	if err != nil {
		t.Fatal(err)
	}
	if rec.GetString("name") != "Beta Tools" {
		t.Errorf("stored name %q, want the trimmed name", rec.GetString("name"))
	}
}

func TestOrgCreateNeedsName(t *testing.T) {
	app := fixture.Empty(t)
	for _, args := range [][]string{
		{"create"},
		{"create", "--name", ""},
		{"create", "--name", "   "},
	} {
		r := runCmd(orgCommand, app, args...)
		wantCmdErr(t, r, "--name is required")
		if r.stdout != "" {
			t.Errorf("%v printed %q on stdout", args, r.stdout)
		}
	}
	if n, _ := app.CountRecords("organizations"); n != 0 {
		t.Errorf("%d organizations created by failed commands", n)
	}
	wantCmdErr(t, runCmd(orgCommand, app, "create", "extra", "--name", "X"), "unknown command")
}

func TestAPIKeyCreatePlain(t *testing.T) {
	app := fixture.Empty(t)
	org := orgViaCLI(t, app, "Acme")

	r := mustRunCmd(t, apikeyCommand, app, "create", "--org", org, "--name", "vendor")
	key := strings.TrimSuffix(r.stdout, "\n")
	if strings.Contains(key, "\n") {
		t.Fatalf("stdout holds more than the key: %q", r.stdout)
	}
	if !strings.HasPrefix(key, apikey.Prefix) || len(key) != 47 {
		t.Fatalf("key %q: want %q and 47 characters, got %d", key, apikey.Prefix, len(key))
	}
	if strings.Contains(r.stderr, key) {
		t.Errorf("the note on stderr repeats the key: %q", r.stderr)
	}
	if !strings.Contains(r.stderr, "shown only now") || !strings.Contains(r.stderr, "organization "+org) {
		t.Errorf("stderr note %q lacks the warning or the organization", r.stderr)
	}

	rec := apiClientRecord(t, app, 1)
	checks := []struct{ field, got, want string }{
		{"keyHash", rec.GetString("keyHash"), apikey.Hash(key)},
		{"keyPrefix", rec.GetString("keyPrefix"), key[:12]},
		{"organization", rec.GetString("organization"), org},
		{"name", rec.GetString("name"), "vendor"},
		{"scopes", strings.Join(rec.GetStringSlice("scopes"), ","), enrichment.ScopeRead},
		{"active", fmt.Sprint(rec.GetBool("active")), "true"},
		{"lastUsedAt", rec.GetString("lastUsedAt"), ""},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.field, c.got, c.want)
		}
	}
	assertRawKeyNotStored(t, app, key)
}

func TestAPIKeyCreateJSONAndScopes(t *testing.T) {
	app := fixture.Empty(t)
	org := orgViaCLI(t, app, "Acme")

	tests := []struct {
		name   string
		scopes []string // nil: flag not given
		want   []string
	}{
		{"default scope", nil, []string{enrichment.ScopeRead}},
		{"read only", []string{"catalog:read"}, []string{enrichment.ScopeRead}},
		{"submit only", []string{"catalog:submit"}, []string{enrichment.ScopeSubmit}},
		{"both", []string{"catalog:read,catalog:submit"}, []string{enrichment.ScopeRead, enrichment.ScopeSubmit}},
		{"both, spaced and repeated", []string{" catalog:submit , catalog:read,catalog:submit,"}, []string{enrichment.ScopeSubmit, enrichment.ScopeRead}},
	}
	seen := map[string]bool{}
	var lastID int64
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"--org", org}
			if tc.scopes != nil {
				args = append(args, "--scopes", tc.scopes[0])
			}
			id, key := keyViaCLI(t, app, args...)
			if id != lastID+1 {
				t.Errorf("id %d, want %d", id, lastID+1)
			}
			lastID = id
			if !strings.HasPrefix(key, "cek_") || len(key) != 47 {
				t.Errorf("key %q is not cek_ + 43 characters", key)
			}
			if seen[key] {
				t.Errorf("key %q issued twice", key)
			}
			seen[key] = true

			rec := apiClientRecord(t, app, id)
			if got := rec.GetString("keyHash"); got != apikey.Hash(key) {
				t.Errorf("stored hash %q, want apikey.Hash(key) %q", got, apikey.Hash(key))
			}
			if got := rec.GetStringSlice("scopes"); strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("scopes %v, want %v", got, tc.want)
			}
			assertRawKeyNotStored(t, app, key)
		})
	}
}

func TestAPIKeyCreateErrors(t *testing.T) {
	app := fixture.Empty(t)
	org := orgViaCLI(t, app, "Acme")

	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown scope", []string{"--org", org, "--scopes", "catalog:write"}, `unknown scope "catalog:write"`},
		{"one unknown among known", []string{"--org", org, "--scopes", "catalog:read,admin"}, `unknown scope "admin"`},
		{"no scope", []string{"--org", org, "--scopes", " , "}, "at least one scope"},
		{"unknown org", []string{"--org", "99"}, "no organization with id 99"},
		{"non-numeric org", []string{"--org", "acme"}, `--org must be an organization id`},
		{"zero org", []string{"--org", "0"}, `--org must be an organization id`},
		{"negative org", []string{"--org", "-1"}, `--org must be an organization id`},
		{"missing org", nil, `--org must be an organization id`},
		{"positional argument", []string{"--org", org, "extra"}, "unknown command"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runCmd(apikeyCommand, app, append([]string{"create"}, tc.args...)...)
			wantCmdErr(t, r, tc.want)
			if r.stdout != "" {
				t.Errorf("stdout %q, want nothing", r.stdout)
			}
		})
	}
	if n := apiClientCount(t, app); n != 0 {
		t.Errorf("%d API clients created by failed commands", n)
	}
}

func TestAPIKeyList(t *testing.T) {
	app := fixture.Empty(t)
	org := orgViaCLI(t, app, "Acme")
	other := orgViaCLI(t, app, "Other")

	readID, readKey := keyViaCLI(t, app, "--org", org, "--name", "reader")
	bothID, bothKey := keyViaCLI(t, app, "--org", org, "--name", "vendor", "--scopes", "catalog:read,catalog:submit")
	_, otherKey := keyViaCLI(t, app, "--org", other, "--name", "elsewhere")

	used := time.Date(2024, 6, 1, 12, 30, 0, 0, time.UTC)
	if err := store.New(app).Accounts().TouchClient(bothID, used); err != nil {
		t.Fatal(err)
	}

	t.Run("table", func(t *testing.T) {
		out := mustRunCmd(t, apikeyCommand, app, "list", "--org", org).stdout
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		if len(lines) != 3 {
			t.Fatalf("want a header and 2 rows, got:\n%s", out)
		}
		for _, h := range []string{"ID", "NAME", "KEY", "SCOPES", "ACTIVE", "LAST USED"} {
			if !strings.Contains(lines[0], h) {
				t.Errorf("header %q lacks %q", lines[0], h)
			}
		}
		rows := []struct {
			line string
			want []string
		}{
			{lines[1], []string{fmt.Sprint(readID), "reader", readKey[:12] + "…", "catalog:read ", "true", "never"}},
			{lines[2], []string{fmt.Sprint(bothID), "vendor", bothKey[:12] + "…", "catalog:read,catalog:submit", "true", "2024-06-01T12:30:00Z"}},
		}
		for _, row := range rows {
			for _, w := range row.want {
				if !strings.Contains(row.line, w) {
					t.Errorf("row %q lacks %q", row.line, w)
				}
			}
		}
		if strings.Contains(lines[2], "never") {
			t.Errorf("a used key shows never: %q", lines[2])
		}
		for _, key := range []string{readKey, bothKey, otherKey} {
			if strings.Contains(out, key) || strings.Contains(out, apikey.Hash(key)) {
				t.Errorf("list shows a key or its hash:\n%s", out)
			}
		}
		if strings.Contains(out, "elsewhere") {
			t.Errorf("list shows another organization's key:\n%s", out)
		}
	})

	t.Run("json", func(t *testing.T) {
		out := mustRunCmd(t, apikeyCommand, app, "list", "--org", org, "--json").stdout
		var got []map[string]any
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("list --json printed %q: %v", out, err)
		}
		if len(got) != 2 {
			t.Fatalf("want 2 clients, got %d: %s", len(got), out)
		}
		whole := map[string]any{"templates": []any{}, "brands": []any{}, "categories": []any{}}
		want := []map[string]any{
			{"id": float64(readID), "organization": org, "name": "reader", "keyPrefix": readKey[:12],
				"scopes": []any{"catalog:read"}, "active": true, "rateLimit": float64(20), "catalog": whole},
			{"id": float64(bothID), "organization": org, "name": "vendor", "keyPrefix": bothKey[:12],
				"scopes": []any{"catalog:read", "catalog:submit"}, "active": true, "rateLimit": float64(20), "catalog": whole},
		}
		for i := range want {
			lastUsed, hasLastUsed := got[i]["lastUsedAt"]
			delete(got[i], "lastUsedAt")
			if fmt.Sprint(got[i]) != fmt.Sprint(want[i]) {
				t.Errorf("client %d: got %v, want %v", i, got[i], want[i])
			}
			switch {
			case i == 0 && hasLastUsed:
				t.Errorf("unused key has lastUsedAt %v", lastUsed)
			case i == 1:
				ts, _ := lastUsed.(string)
				if parsed, err := time.Parse(time.RFC3339, ts); err != nil || !parsed.Equal(used) {
					t.Errorf("lastUsedAt %v, want %v", lastUsed, used)
				}
			}
		}
		for _, key := range []string{readKey, bothKey} {
			if strings.Contains(out, key) || strings.Contains(out, apikey.Hash(key)) {
				t.Errorf("list --json shows a key or its hash: %s", out)
			}
		}
	})

	t.Run("empty organization", func(t *testing.T) {
		empty := orgViaCLI(t, app, "Empty")
		out := mustRunCmd(t, apikeyCommand, app, "list", "--org", empty, "--json").stdout
		if strings.TrimSpace(out) != "[]" {
			t.Errorf("list --json of an organization without keys printed %q, want []", out)
		}
	})

	t.Run("errors", func(t *testing.T) {
		wantCmdErr(t, runCmd(apikeyCommand, app, "list", "--org", "42"), "no organization with id 42")
		wantCmdErr(t, runCmd(apikeyCommand, app, "list", "--org", "x"), "--org must be an organization id")
		wantCmdErr(t, runCmd(apikeyCommand, app, "list"), "--org must be an organization id")
	})
}

func TestAPIKeyRevoke(t *testing.T) {
	app := fixture.Empty(t)
	org := orgViaCLI(t, app, "Acme")
	id, key := keyViaCLI(t, app, "--org", org)
	keepID, _ := keyViaCLI(t, app, "--org", org)

	r := mustRunCmd(t, apikeyCommand, app, "revoke", fmt.Sprint(id))
	if !strings.Contains(r.stdout, fmt.Sprintf("Revoked API key %d (%s…)", id, key[:12])) {
		t.Errorf("revoke printed %q", r.stdout)
	}
	if strings.Contains(r.stdout, key) {
		t.Errorf("revoke printed the key: %q", r.stdout)
	}
	if apiClientRecord(t, app, id).GetBool("active") {
		t.Error("revoked key is still active")
	}
	if !apiClientRecord(t, app, keepID).GetBool("active") {
		t.Error("revoking one key deactivated another")
	}
	client, err := store.New(app).Accounts().ClientByKeyHash(apikey.Hash(key), time.Now())
	if err != nil || client.Active {
		t.Errorf("ClientByKeyHash after revoke: %+v, %v; want an inactive client", client, err)
	}

	list := mustRunCmd(t, apikeyCommand, app, "list", "--org", org).stdout
	lines := strings.Split(strings.TrimRight(list, "\n"), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], "false") || !strings.Contains(lines[2], "true") {
		t.Errorf("list after revoke:\n%s", list)
	}

	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown id", []string{"revoke", "999"}, "no API key with id 999"},
		{"non-numeric id", []string{"revoke", "cek_abc"}, "KEY_ID must be"},
		{"zero id", []string{"revoke", "0"}, "KEY_ID must be"},
		{"no id", []string{"revoke"}, "accepts 1 arg"},
		{"two ids", []string{"revoke", "1", "2"}, "accepts 1 arg"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wantCmdErr(t, runCmd(apikeyCommand, app, tc.args...), tc.want)
		})
	}
	if !apiClientRecord(t, app, keepID).GetBool("active") {
		t.Error("a failed revoke deactivated a key")
	}
}

func TestDefaultDataDir(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, "pb_data"},
		{[]string{"serve"}, "pb_data"},
		{[]string{"serve", "--http", "127.0.0.1:8090"}, "pb_data"},
		{[]string{"demo"}, "pb_demo"},
		{[]string{"demo", "--http", "127.0.0.1:9000"}, "pb_demo"},
		{[]string{"--dev", "demo"}, "pb_demo"},
		{[]string{"--queryTimeout=5", "demo"}, "pb_demo"},
		{[]string{"--queryTimeout", "60", "demo"}, "pb_demo"},
		{[]string{"--encryptionEnv", "KEY", "--dev", "demo"}, "pb_demo"},
		{[]string{"-h"}, "pb_data"},
		{[]string{"serve", "demo"}, "pb_data"}, // demo is an argument there, not the subcommand
		{[]string{"org", "create", "--name", "demo"}, "pb_data"},
		{[]string{"apikey", "demo"}, "pb_data"},
		{[]string{"--", "demo"}, "pb_data"},
		{[]string{"Demo"}, "pb_data"},
		{[]string{""}, "pb_data"},
	}
	for _, tc := range tests {
		if got := DefaultDataDir(tc.args); got != tc.want {
			t.Errorf("DefaultDataDir(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

func TestSubcommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"serve", "--http", "127.0.0.1:8090"}, "serve"},
		{[]string{"--dir", "/var/lib/enrichment", "serve"}, "serve"},
		{[]string{"--dir=/srv/data", "restore", "--from", "file:///backups"}, "restore"},
		{[]string{"--dev", "--queryTimeout", "60", "import", "catalog.json"}, "import"},
		{[]string{"--", "serve"}, ""},
		{[]string{"--dir"}, ""},
	} {
		if got := Subcommand(tc.args); got != tc.want {
			t.Errorf("Subcommand(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

// A restore that did not see the data folder before PocketBase opened it
// never clears it.
func TestRestoreNeedsTheFolderChecked(t *testing.T) {
	app := fixture.Empty(t)
	marker := filepath.Join(app.DataDir(), "keep.txt")
	if err := os.WriteFile(marker, []byte("data"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runCmd(func(app core.App) *cobra.Command { return restoreCommand(app, false) }, app, "--from", "file:///nowhere")
	wantCmdErr(t, r, "did not see")
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the folder was cleared: %v", err)
	}
}

// A mistyped subcommand of a group fails (cobra printed the group's help
// and exited 0); the group alone prints its help.
func TestUnknownSubcommandsFail(t *testing.T) {
	app := fixture.Empty(t)
	for _, args := range [][]string{{"org", "bogus"}, {"apikey", "revoek", "5"}, {"metrics", "bogus"}} {
		root := &cobra.Command{Use: "app"}
		root.AddCommand(orgCommand(app), apikeyCommand(app), metricsCommand(app))
		var out bytes.Buffer
		root.SetArgs(args)
		root.SetOut(&out)
		root.SetErr(&out)
		err := root.Execute()
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("unknown command %q for \"app %s\"", args[1], args[0])) {
			t.Errorf("%v: %v", args, err)
		}
	}
	root := &cobra.Command{Use: "app"}
	root.AddCommand(apikeyCommand(app))
	var out bytes.Buffer
	root.SetArgs([]string{"apikey"})
	root.SetOut(&out)
	if err := root.Execute(); err != nil || !strings.Contains(out.String(), "Available Commands") {
		t.Errorf("apikey alone: %v %s", err, out.String())
	}
}
