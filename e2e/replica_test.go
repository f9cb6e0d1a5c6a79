package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// replicaWindow is the service's promise: a change acknowledged longer ago
// than this is at the replica (replica.Window).
const replicaWindow = time.Second

// TestReplicaSurvivesLostMachine replicates to a folder, loses the machine
// (SIGKILL under the submission load, and the data folder is never looked
// at again), restores the replica into a new folder and serves it: every
// batch acknowledged more than the window before the loss is there with the
// ids it was answered. A restore to a moment between two batches has the
// first and not the second.
func TestReplicaSurvivesLostMachine(t *testing.T) {
	dir := t.TempDir()
	orgID, key := newOrgWithKey(t, dir, "Replicated Co")
	cat := importCrashCatalog(t, dir, orgID)
	const suEmail, suPassword = "ops@example.com", "ops-password-123"
	cli(t, dir, "superuser", "upsert", suEmail, suPassword)
	url := "file://" + filepath.Join(t.TempDir(), "replica")

	srv := startServeEnv(t, bin, dir, []string{"ENRICHMENT_REPLICA_URL=" + url})
	if !strings.Contains(srv.stdout.String(), "Replicating data.db to "+url) {
		t.Errorf("serve does not say where it replicates: %s", srv.output())
	}
	token := signIn(t, srv.base, "_superusers", suEmail, suPassword)
	status := replicationStatus(t, srv.base, token)
	if !status.Enabled || status.Replica != url {
		t.Errorf("replication status: %+v", status)
	}
	first, second, between := twoBatchesApart(t, srv.base, key, cat)

	lags := watchLag(srv.base, token)
	batches, killedAt := killUnderLoad(t, srv, key, cat, 2*time.Second)
	lags.finish()
	t.Logf("replication lag during the load, every 100 ms: %s", lags)
	// the promise: a change acknowledged more than the window ago is at the
	// replica, unless the server reported it behind; then the lag it
	// reported (plus the 0.2 s it may err short by being read every 100 ms)
	window := replicaWindow
	if reported := lags.before(killedAt); reported+200*time.Millisecond > window {
		window = reported + 200*time.Millisecond
		t.Logf("the server reported a lag of %s at the kill: the batches acknowledged %s before it must be kept", reported, window)
	}
	required := func(b *crashBatch) bool { return b.acked && b.ackedAt.Before(killedAt.Add(-window)) }
	n := 0
	for _, b := range batches {
		if required(b) {
			n++
		}
	}
	if n == 0 {
		t.Fatalf("no batch was acknowledged more than %s before the kill: the test proves nothing", window)
	}

	// a restore never touches a data folder that is not empty
	before := folderState(t, dir)
	if _, errOut, err := cliResult(dir, "restore", "--from", url); err == nil || !strings.Contains(errOut, "not empty") {
		t.Errorf("restore into the old data folder: %v %s", err, errOut)
	}
	if after := folderState(t, dir); after != before {
		t.Errorf("a refused restore changed the folder:\n%s\nbecame\n%s", before, after)
	}
	// refused flags leave a new folder uncreated and an empty one empty
	parent := t.TempDir()
	for _, c := range []struct {
		name, want string
		args       []string
	}{
		{"no --from", "--from is required", nil},
		{"a timestamp not RFC 3339", "want RFC 3339", []string{"--from", url, "--timestamp", "yesterday"}},
		{"a timestamp in the future", "in the future", []string{"--from", url, "--timestamp", time.Now().AddDate(1, 0, 0).UTC().Format(time.RFC3339)}},
	} {
		fresh, empty := filepath.Join(parent, "new"), filepath.Join(parent, "empty")
		if err := os.MkdirAll(empty, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, dir := range []string{fresh, empty} {
			if _, errOut, err := cliResult(dir, append([]string{"restore"}, c.args...)...); err == nil || !strings.Contains(errOut, c.want) {
				t.Errorf("restore with %s into %s: %v %s", c.name, filepath.Base(dir), err, errOut)
			}
		}
		if _, err := os.Stat(fresh); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("restore with %s created the new folder: %v", c.name, err)
		}
		if entries, err := os.ReadDir(empty); err != nil || len(entries) > 0 {
			t.Errorf("restore with %s left %d entries in the empty folder: %v", c.name, len(entries), err)
		}
	}

	restored := t.TempDir()
	started := time.Now()
	out := cli(t, restored, "restore", "--from", url)
	t.Logf("restore: %s (%s)", strings.TrimSpace(out), time.Since(started).Round(time.Millisecond))

	srv = startServe(t, restored)
	fresh := newCrashBatch(rand.New(rand.NewPCG(3, 4)), "after-restore", cat.skus, cat.active)
	checkAfterCrash(t, openReadOnly(t, restored), srv.base+"/api/enrichment", key,
		append([]*crashBatch{first, second}, batches...), fresh, killedAt, required)
	t.Logf("%d batches were acknowledged more than %s before the kill", n, window)

	checkPointInTime(t, url, nil, between, first, second)
}

// folderState lists a folder's files with their sizes and times.
func folderState(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %d %s\n", path, info.Size(), info.ModTime().Format(time.RFC3339Nano))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestReplicaS3 replicates to an S3-compatible server (versitygw, a real S3
// gateway over a folder, started here on loopback) and restores from it,
// the latest state and the state between two batches.
func TestReplicaS3(t *testing.T) {
	endpoint, env := startS3Server(t, "backups")
	dir := t.TempDir()
	orgID, key := newOrgWithKey(t, dir, "Bucket Co")
	cat := importCrashCatalog(t, dir, orgID)
	url := "s3://backups/enrichment/prod?endpoint=" + endpoint + "&region=us-east-1"

	srv := startServeEnv(t, bin, dir, append(env, "ENRICHMENT_REPLICA_URL="+url))
	first, second, between := twoBatchesApart(t, srv.base, key, cat)
	time.Sleep(2 * replicaWindow)
	if err := srv.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-srv.done

	restored := t.TempDir()
	if _, errOut, err := binaryResultEnv(bin, restored, env, "restore", "--from", url); err != nil {
		t.Fatalf("restore from S3: %v\n%s", err, errOut)
	}
	srv = startServe(t, restored)
	for _, b := range []*crashBatch{first, second} {
		a := send(http.MethodPost, srv.base+"/api/enrichment/products/submissions", key, b.body)
		ids, err := parseIDs(a.body)
		if a.status != http.StatusOK || err != nil || a.header.Get("Idempotent-Replayed") != "true" || !sameIDs(ids, b.ids) {
			t.Errorf("batch %s after the restore: %d, replayed %q, ids %v (%v), want %v",
				b.ext, a.status, a.header.Get("Idempotent-Replayed"), ids, err, b.ids)
		}
	}
	checkPointInTime(t, url, env, between, first, second)
}

// twoBatchesApart submits two batches with a moment between them that the
// replica tells apart: the first is at the replica (twice the window after
// its answer) before the moment, the second is sent after it.
func twoBatchesApart(t *testing.T, base, key string, cat crashCatalog) (first, second *crashBatch, between time.Time) {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 6))
	submit := func(ext string) *crashBatch {
		b := newCrashBatch(rng, ext, cat.skus, cat.active)
		a := send(http.MethodPost, base+"/api/enrichment/products/submissions", key, b.body)
		if a.err != nil || a.status != http.StatusOK {
			t.Fatalf("batch %s: %d %v %s", ext, a.status, a.err, tail(string(a.body)))
		}
		var err error
		if b.ids, err = parseIDs(a.body); err != nil || len(b.ids) == 0 {
			t.Fatalf("batch %s stored nothing: %v", ext, err)
		}
		b.acked, b.ackedAt = true, time.Now()
		return b
	}
	first = submit("pitr-first")
	time.Sleep(2 * replicaWindow)
	between = time.Now()
	time.Sleep(10 * time.Millisecond)
	return first, submit("pitr-second"), between
}

// checkPointInTime restores the replica at url as of between into a new
// folder: it has the first batch, with its ids, and not the second.
func checkPointInTime(t *testing.T, url string, env []string, between time.Time, first, second *crashBatch) {
	t.Helper()
	dir := t.TempDir()
	if _, errOut, err := binaryResultEnv(bin, dir, env, "restore", "--from", url,
		"--timestamp", between.UTC().Format(time.RFC3339Nano)); err != nil {
		t.Fatalf("restore as of %s: %v\n%s", between.Format(time.RFC3339Nano), err, errOut)
	}
	db := openReadOnly(t, dir)
	for _, b := range []*crashBatch{first, second} {
		var got []int64
		for _, id := range column(t, db, fmt.Sprintf(`SELECT CAST(id AS INTEGER) FROM revisions WHERE externalSubmissionId = '%s'`, b.ext)) {
			var n int64
			fmt.Sscan(id, &n)
			got = append(got, n)
		}
		if want := b == first; want != (len(got) > 0) || (want && !sameIDs(got, b.ids)) {
			t.Errorf("state as of %s: batch %s has revisions %v, want them %v: %v",
				between.Format(time.RFC3339Nano), b.ext, got, map[bool]string{true: "present", false: "absent"}[want], b.ids)
		}
	}
}

// replicationState is what GET /api/replication answers.
type replicationState struct {
	Enabled                bool
	Replica                string
	LagSeconds             float64
	Behind                 bool
	LocalTXID, ReplicaTXID uint64
}

// replicationStatus reads GET /api/replication as a superuser.
func replicationStatus(t *testing.T, base, token string) replicationState {
	t.Helper()
	s, err := readReplicationStatus(base, token)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func readReplicationStatus(base, token string) (replicationState, error) {
	a := pbJSON(http.MethodGet, base+"/api/replication", token, nil)
	var s replicationState
	if a.err != nil || a.status != http.StatusOK || json.Unmarshal(a.body, &s) != nil {
		return s, fmt.Errorf("GET /api/replication: %d %v %s", a.status, a.err, a.body)
	}
	return s, nil
}

// lagWatch reads the replication lag the server reports every 100 ms
// until it stops answering.
type lagWatch struct {
	mu       sync.Mutex
	readings []lagReading
	stop     chan struct{}
	exited   chan struct{}
}

type lagReading struct {
	at  time.Time
	lag float64 // seconds
}

func watchLag(base, token string) *lagWatch {
	w := &lagWatch{stop: make(chan struct{}), exited: make(chan struct{})}
	go func() {
		defer close(w.exited)
		for {
			s, err := readReplicationStatus(base, token)
			if err != nil {
				return
			}
			w.mu.Lock()
			w.readings = append(w.readings, lagReading{at: time.Now(), lag: s.LagSeconds})
			w.mu.Unlock()
			select {
			case <-w.stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return w
}

// finish stops the watch.
func (w *lagWatch) finish() {
	close(w.stop)
	<-w.exited
}

// before returns the largest lag reported in the 500 ms before t.
func (w *lagWatch) before(t time.Time) time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	most := 0.0
	for _, r := range w.readings {
		if r.at.Before(t) && t.Sub(r.at) <= 500*time.Millisecond {
			most = max(most, r.lag)
		}
	}
	return time.Duration(most * float64(time.Second))
}

func (w *lagWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.readings) == 0 {
		return "no reading"
	}
	parts := make([]string, len(w.readings))
	most := 0.0
	for i, r := range w.readings {
		parts[i] = fmt.Sprintf("%.1f", r.lag)
		most = max(most, r.lag)
	}
	return fmt.Sprintf("max %.2f s over %d readings: %s", most, len(w.readings), strings.Join(parts, " "))
}

// startS3Server runs versitygw (an S3 gateway, posix backend) on a loopback
// port with a bucket, and returns its endpoint and the environment that
// reaches it. CI installs it (.ci/run); elsewhere the test is skipped
// without it.
func startS3Server(t *testing.T, bucket string) (endpoint string, env []string) {
	t.Helper()
	path, err := exec.LookPath("versitygw")
	if err != nil {
		if gopath, goErr := exec.Command("go", "env", "GOPATH").Output(); goErr == nil {
			candidate := filepath.Join(strings.TrimSpace(string(gopath)), "bin", "versitygw")
			if _, statErr := os.Stat(candidate); statErr == nil {
				path, err = candidate, nil
			}
		}
	}
	if err != nil {
		const install = "go install github.com/versity/versitygw/cmd/versitygw@v1.8.0"
		if os.Getenv("CI") != "" {
			t.Fatalf("versitygw, the S3 server of this test, is missing: %s", install)
		}
		t.Skipf("versitygw, the S3 server of this test, is missing (%s)", install)
	}
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, bucket), 0o755); err != nil {
		t.Fatal(err)
	}
	const access, secret = "e2e-access-key", "e2e-secret-key-0123456789"
	// note: AWS_CA_BUNDLE, set on some machines, is one the S3 client cannot use
	env = []string{"AWS_ACCESS_KEY_ID=" + access, "AWS_SECRET_ACCESS_KEY=" + secret, "AWS_CA_BUNDLE="}
	for attempt := 1; ; attempt++ {
		addr := freeAddr(t)
		cmd := exec.Command(path, "--port", addr, "--access", access, "--secret", secret, "--quiet", "posix", root)
		var out syncBuffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		t.Cleanup(func() {
			_ = cmd.Process.Signal(os.Interrupt)
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				_ = cmd.Process.Kill()
				<-done
			}
		})
		if listening(addr, done, 10*time.Second) {
			return "http://" + addr, env
		}
		if attempt >= 3 || !strings.Contains(out.String(), "address already in use") {
			t.Fatalf("versitygw not listening on %s within 10 s: %s", addr, tail(out.String()))
		}
	}
}

// listening waits up to limit for addr to accept connections, or for done.
func listening(addr string, done <-chan struct{}, limit time.Duration) bool {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		select {
		case <-done:
			return false
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return true
		}
	}
	return false
}
