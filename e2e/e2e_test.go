// Package e2e runs the real binary: the operators' subcommands, `serve` and
// `demo` on a loopback port, and plain HTTP requests against them.
package e2e

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite" // driver "sqlite", to read the request logs
)

const (
	keyHeader = "X-Api-Client-Key"
	// how long a server gets to answer its first request
	startTimeout = 20 * time.Second
	// how long the demo gets to import its catalog and print its banner
	bannerTimeout = 40 * time.Second
	// how long a subcommand such as `org create` may run
	cliTimeout = 30 * time.Second
)

// bin is the binary built once by TestMain.
var bin string

var httpClient = &http.Client{Timeout: 10 * time.Second}

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	// note: a binary under the temp folder makes PocketBase guess dev mode;
	// the service must decide it itself, which the tests below check
	tmp, err := os.MkdirTemp("", "enrichment-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)

	root, err := filepath.Abs("..")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	bin = filepath.Join(tmp, "enrichment")
	start := time.Now()
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: go build in %s: %v\n%s", root, err, out)
		return 1
	}
	fmt.Printf("e2e: built %s in %s\n", bin, time.Since(start).Round(time.Millisecond))
	return m.Run()
}

// cli runs a subcommand to completion on data folder dir and returns its
// stdout; a failure fails the test.
func cli(t *testing.T, dir string, args ...string) string {
	t.Helper()
	stdout, stderr, err := cliResult(dir, args...)
	if err != nil {
		t.Fatalf("enrichment %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, tail(stdout), tail(stderr))
	}
	return stdout
}

func cliResult(dir string, args ...string) (stdout, stderr string, err error) {
	return binaryResult(bin, dir, args...)
}

// binaryResult runs a subcommand of binary to completion on data folder dir.
func binaryResult(binary, dir string, args ...string) (stdout, stderr string, err error) {
	return binaryResultEnv(binary, dir, nil, args...)
}

// binaryResultEnv is binaryResult with env added to the environment.
func binaryResultEnv(binary, dir string, env []string, args ...string) (stdout, stderr string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, append(args, "--dir", dir)...)
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
}

// cliJSON runs a subcommand that prints one JSON value and decodes it into v.
func cliJSON(t *testing.T, dir string, v any, args ...string) {
	t.Helper()
	out := cli(t, dir, args...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("enrichment %s printed %q: %v", strings.Join(args, " "), tail(out), err)
	}
}

// syncBuffer collects a process's output while tests read it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// process is a long-running `serve` or `demo`.
type process struct {
	t       *testing.T
	args    []string
	cmd     *exec.Cmd
	stdout  syncBuffer
	stderr  syncBuffer
	started time.Time
	done    chan struct{} // closed when the process has exited
	err     error         // its exit status, once done is closed
	base    string        // http://127.0.0.1:PORT
}

// startProcess starts the binary with args on a fresh loopback port (given
// as --http) and stops it when the test ends.
func startProcess(t *testing.T, args ...string) *process {
	t.Helper()
	return startBinary(t, bin, args...)
}

// startBinary is startProcess with another binary.
func startBinary(t *testing.T, binary string, args ...string) *process {
	t.Helper()
	return startBinaryEnv(t, binary, nil, args...)
}

// startBinaryEnv is startBinary with env added to the environment.
func startBinaryEnv(t *testing.T, binary string, env []string, args ...string) *process {
	t.Helper()
	addr := freeAddr(t)
	p := &process{t: t, args: append(args, "--http", addr), base: "http://" + addr, done: make(chan struct{})}
	p.cmd = exec.Command(binary, p.args...)
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	p.started = time.Now()
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start enrichment %s: %v", strings.Join(p.args, " "), err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(p.stop)
	return p
}

// freeAddr returns a loopback address whose port was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// lostPort reports whether the process died because its port was taken
// between freeAddr and its listen: worth a retry on another port.
func (p *process) lostPort() bool {
	return p.exited() && strings.Contains(p.stdout.String()+p.stderr.String(), "address already in use")
}

// stop interrupts the process (PocketBase then flushes its logs and closes
// its databases), killing it if it does not exit in time.
func (p *process) stop() {
	if p.exited() {
		return
	}
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		p.t.Errorf("enrichment %s ignored the interrupt for 15 s; killing it", strings.Join(p.args, " "))
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// output is the end of what the process printed so far, for failure messages.
func (p *process) output() string {
	return "stdout:\n" + tail(p.stdout.String()) + "\nstderr:\n" + tail(p.stderr.String())
}

// tail keeps failure messages readable when a process printed a lot.
func tail(s string) string {
	const max = 4000
	if len(s) <= max {
		return s
	}
	return "[…]" + s[len(s)-max:]
}

// status describes how far the process got, for failure messages.
func (p *process) status() string {
	if p.exited() {
		return fmt.Sprintf("exited after %s (%v)", time.Since(p.started).Round(time.Millisecond), p.err)
	}
	return "still running"
}

// checkNoSQLEcho fails the test when the process printed SQL statements,
// which PocketBase does in dev mode.
func (p *process) checkNoSQLEcho() {
	p.t.Helper()
	out := p.stdout.String() + "\n" + p.stderr.String()
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "SELECT ") || strings.Contains(line, "INSERT INTO ") {
			p.t.Errorf("enrichment %s printed SQL, so dev mode is on: %s",
				strings.Join(p.args, " "), tail(line))
			return
		}
	}
}

// startServe runs `serve` on data folder dir and waits until it is healthy.
func startServe(t *testing.T, dir string) *process {
	t.Helper()
	return startServeOf(t, bin, dir)
}

// startServeOf is startServe with another binary.
func startServeOf(t *testing.T, binary, dir string) *process {
	t.Helper()
	return startServeEnv(t, binary, dir, nil)
}

// startServeEnv is startServeOf with env added to the environment.
func startServeEnv(t *testing.T, binary, dir string, env []string) *process {
	t.Helper()
	for attempt := 1; ; attempt++ {
		p := startBinaryEnv(t, binary, env, "serve", "--dir", dir)
		deadline := time.Now().Add(startTimeout)
		for time.Now().Before(deadline) && !p.exited() {
			if status, _ := get(p.base+"/api/health", ""); status == http.StatusOK {
				t.Logf("serve: healthy %s after start", time.Since(p.started).Round(time.Millisecond))
				return p
			}
			time.Sleep(50 * time.Millisecond)
		}
		if p.lostPort() && attempt < 3 {
			continue
		}
		p.stop()
		t.Fatalf("serve not healthy (waited up to %s): %s\n%s", startTimeout, p.status(), p.output())
	}
}

// get sends a GET with key (none when empty) and returns the status and
// body; status 0 means the request did not get an answer.
func get(url, key string) (int, []byte) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0, nil
	}
	if key != "" {
		req.Header.Set(keyHeader, key)
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return 0, nil
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil
	}
	return resp.StatusCode, body
}

// mustGet is get that expects a given status.
func mustGet(t *testing.T, url, key string, want int) []byte {
	t.Helper()
	status, body := get(url, key)
	if status != want {
		t.Fatalf("GET %s: status %d, want %d; body %s", url, status, want, body)
	}
	return body
}

// listRow is the `apikey list` line of key id (the columns are ID, NAME,
// KEY, SCOPES, ACTIVE, LAST USED).
func listRow(t *testing.T, list string, id int64) []string {
	t.Helper()
	for _, line := range strings.Split(list, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == fmt.Sprint(id) {
			return f
		}
	}
	t.Fatalf("apikey list has no row for key %d:\n%s", id, list)
	return nil
}

func TestOperatorFlow(t *testing.T) {
	dir := t.TempDir()

	var org struct {
		ID   int64  `json:"id"`
		Name string `json:"name"`
	}
	cliJSON(t, dir, &org, "org", "create", "--name", "Acme", "--json")
	if org.ID != 1 || org.Name != "Acme" {
		t.Fatalf("org create --json: %+v, want id 1 named Acme", org)
	}
	orgID := fmt.Sprint(org.ID)

	var key struct {
		ID  int64  `json:"id"`
		Key string `json:"key"`
	}
	cliJSON(t, dir, &key, "apikey", "create", "--org", orgID, "--scopes", "catalog:read,catalog:submit", "--json")
	if key.ID != 1 || !strings.HasPrefix(key.Key, "cek_") || len(key.Key) != 47 {
		t.Fatalf("apikey create --json: %+v", key)
	}
	if row := listRow(t, cli(t, dir, "apikey", "list", "--org", orgID), key.ID); row[len(row)-1] != "never" {
		t.Errorf("a key not used yet shows last use %q, want never", row[len(row)-1])
	}

	srv := startServe(t, dir)
	templates := srv.base + "/api/enrichment/attribute-templates"

	if body := mustGet(t, templates, key.Key, http.StatusOK); strings.TrimSpace(string(body)) != "[]" {
		t.Errorf("templates of an empty organization: %s, want []", body)
	}
	unauthorized := []struct{ name, key string }{
		{"no key", ""},
		{"garbage key", "cek_" + strings.Repeat("x", 43)},
		{"key with a changed character", key.Key[:46] + flip(key.Key[46])},
	}
	for _, u := range unauthorized {
		if status, body := get(templates, u.key); status != http.StatusUnauthorized {
			t.Errorf("%s: status %d, want 401; body %s", u.name, status, body)
		}
	}

	// the first use is recorded at once, and seen by another process
	row := listRow(t, cli(t, dir, "apikey", "list", "--org", orgID), key.ID)
	if last := row[len(row)-1]; last == "never" {
		t.Errorf("key used by a request still shows last use never: %v", row)
	} else if ts, err := time.Parse(time.RFC3339, last); err != nil || time.Since(ts) > time.Minute {
		t.Errorf("last use %q is not a recent RFC 3339 time (%v)", last, err)
	}

	// revoked by another process while the server runs: refused at once
	revokedAt := time.Now()
	if out := cli(t, dir, "apikey", "revoke", fmt.Sprint(key.ID)); !strings.Contains(out, "Revoked API key 1") {
		t.Errorf("apikey revoke printed %q", out)
	}
	if status, body := get(templates, key.Key); status != http.StatusUnauthorized {
		t.Errorf("the first request after revoke: status %d, want 401; body %s", status, body)
	}
	t.Logf("revoke took effect within %s (CLI process included)", time.Since(revokedAt).Round(time.Millisecond))

	row = listRow(t, cli(t, dir, "apikey", "list", "--org", orgID), key.ID)
	if active, last := row[len(row)-2], row[len(row)-1]; active != "false" || last == "never" {
		t.Errorf("apikey list after revoke: %v, want inactive with a last use", row)
	}
	if _, _, err := cliResult(dir, "apikey", "revoke", "99"); err == nil {
		t.Error("revoking an unknown key id exited with status 0")
	}

	srv.stop()
	srv.checkNoSQLEcho()
	assertKeysNotStored(t, dir, key.Key)
}

// flip changes one base64url character into another one.
func flip(c byte) string {
	if c == 'A' {
		return "B"
	}
	return "A"
}

// assertKeysNotStored checks, after the server has exited, that no file of
// the data folder holds a raw key, and that the request logs the check
// covers were written at all.
func assertKeysNotStored(t *testing.T, dir string, keys ...string) {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files = append(files, path)
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, key := range keys {
			if bytes.Contains(b, []byte(key)) {
				t.Errorf("raw key %s… found in %s", key[:12], path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"data.db", "auxiliary.db"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Fatalf("%s missing from the data folder (files: %v): %v", name, files, err)
		}
	}

	// note: opened only now, as opening may create -wal/-shm files
	db, err := sql.Open("sqlite", filepath.Join(dir, "auxiliary.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var logged int
	err = db.QueryRow(`SELECT COUNT(*) FROM _logs WHERE data LIKE '%/api/enrichment/%'`).Scan(&logged)
	if err != nil {
		t.Fatalf("read request logs: %v", err)
	}
	if logged == 0 {
		t.Fatal("no enrichment request in auxiliary.db's logs: the key check above proved nothing")
	}
	rows, err := db.Query(`SELECT data FROM _logs`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var data string
		if err := rows.Scan(&data); err != nil {
			t.Fatal(err)
		}
		for _, key := range keys {
			if strings.Contains(data, key) {
				t.Errorf("raw key %s… in a request log: %s", key[:12], data)
			}
		}
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		t.Fatal(err)
	}
}
