package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/catalog/gen"
)

// The releases before this one, as commits of this repository. Their
// binaries, built from the repository's history, make the data folders
// that this release must upgrade by simply starting.
const (
	// version1Release is Version 1, the first release.
	version1Release = "f99acae2634d135bafe92feb1c1a8cf812e8e4b7"
	// version2Release is Version 2 (the review loop closes, webhooks, the
	// change feed), the last commit before Version 3's work.
	version2Release = "c00ac232525e2da46c0faf5f4d624962318210ea"
	// version3Release is Version 3 (review at the speed of trust: trust
	// policies, audits, rollback), the last commit before Version 4's work.
	version3Release = "f0d1e14687fa46db7bdf7eeffa13753b4ae0382c"
)

// buildRelease builds the binary of a commit of this repository into the
// test's temporary folder.
func buildRelease(t *testing.T, commit string) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "-C", root, "cat-file", "-e", commit+"^{commit}").CombinedOutput(); err != nil {
		t.Fatalf("the previous release %s is not in this clone's history (a shallow clone?): %v %s", commit[:12], err, out)
	}
	src := filepath.Join(t.TempDir(), "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	archive := exec.Command("git", "-C", root, "archive", "--format=tar", commit)
	untar := exec.Command("tar", "-x", "-C", src)
	var archived bytes.Buffer
	archive.Stdout = &archived
	if err := archive.Run(); err != nil {
		t.Fatalf("git archive %s: %v", commit[:12], err)
	}
	untar.Stdin = &archived
	if out, err := untar.CombinedOutput(); err != nil {
		t.Fatalf("untar %s: %v %s", commit[:12], err, out)
	}
	binary := filepath.Join(t.TempDir(), "enrichment-"+commit[:12])
	start := time.Now()
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Dir = src
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the previous release: %v\n%s", err, out)
	}
	t.Logf("built the previous release %s in %s", commit[:12], time.Since(start).Round(time.Millisecond))
	return binary
}

// oldCLI runs a subcommand of the previous release and decodes its JSON.
func oldCLI(t *testing.T, binary, dir string, v any, args ...string) {
	t.Helper()
	out, errOut, err := binaryResult(binary, dir, args...)
	if err != nil {
		t.Fatalf("previous release %s: %v\n%s%s", strings.Join(args, " "), err, out, errOut)
	}
	if v != nil {
		if err := json.Unmarshal([]byte(out), v); err != nil {
			t.Fatalf("previous release %s printed %q: %v", strings.Join(args, " "), tail(out), err)
		}
	}
}

// apiSnapshot is what vendors and reviewers read of a data folder.
type apiSnapshot map[string]any

// snapshot reads, through the API, everything that must survive the
// upgrade: templates, every export page, each key's revisions and metrics.
func snapshot(t *testing.T, base string, keys map[string]string) apiSnapshot {
	t.Helper()
	out := apiSnapshot{}
	read := func(name, url, key string) {
		status, body := get(url, key)
		if status != http.StatusOK {
			t.Fatalf("%s: %d %s", name, status, body)
		}
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = v
	}
	api := base + "/api/enrichment"
	for name, key := range keys {
		read(name+" templates", api+"/attribute-templates", key)
		for page := 0; page < 2; page++ {
			read(fmt.Sprintf("%s products page %d", name, page), fmt.Sprintf("%s/products?pageSize=500&page=%d", api, page), key)
		}
		read(name+" revisions", api+"/revisions?pageSize=500", key)
		read(name+" metrics", api+"/acceptance-rate", key)
	}
	return out
}

// extends reports where now differs from before other than by added object
// members: every later release may add keys to a response, never change or
// drop one.
func extends(before, now any, at string) []string {
	switch b := before.(type) {
	case map[string]any:
		n, ok := now.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: was an object, now %T", at, now)}
		}
		var diffs []string
		for k, v := range b {
			nv, ok := n[k]
			if !ok {
				diffs = append(diffs, at+"."+k+": gone")
				continue
			}
			diffs = append(diffs, extends(v, nv, at+"."+k)...)
		}
		return diffs
	case []any:
		n, ok := now.([]any)
		if !ok || len(n) != len(b) {
			return []string{fmt.Sprintf("%s: %d items, now %v", at, len(b), describeLen(now))}
		}
		var diffs []string
		for i := range b {
			diffs = append(diffs, extends(b[i], n[i], fmt.Sprintf("%s[%d]", at, i))...)
		}
		return diffs
	}
	if !reflect.DeepEqual(before, now) {
		return []string{fmt.Sprintf("%s: %v, now %v", at, before, now)}
	}
	return nil
}

func describeLen(v any) string {
	if s, ok := v.([]any); ok {
		return fmt.Sprintf("%d items", len(s))
	}
	return fmt.Sprintf("a %T", v)
}

// TestUpgradeFromPreviousRelease builds the previous release, lets it make a
// data folder as merchants have it (two organizations, imported catalogs,
// keys revoked and rotated, proposals decided and pending, an idempotency
// key), then starts this release on it: everything read through the API
// is as before, every key works as before, and decisions stay final.
func TestUpgradeFromPreviousRelease(t *testing.T) {
	old := buildRelease(t, version1Release)
	dir := t.TempDir()

	catalogFile := func(name string, opt gen.Options) string {
		var buf bytes.Buffer
		if err := gen.Write(&buf, opt); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	type created struct {
		ID  int64  `json:"id"`
		Key string `json:"key"`
	}
	var orgA, orgB, keyA, keyB, revoked, rotated created
	oldCLI(t, old, dir, &orgA, "org", "create", "--name", "Alpha", "--json")
	oldCLI(t, old, dir, &orgB, "org", "create", "--name", "Beta", "--json")
	catalogA := catalogFile("a.json", gen.Options{Products: 600, Templates: 3, Brands: 6, Seed: 11})
	oldCLI(t, old, dir, nil, "import", "--org", fmt.Sprint(orgA.ID), catalogA)
	oldCLI(t, old, dir, nil, "import", "--org", fmt.Sprint(orgB.ID), catalogFile("b.json", gen.Options{Products: 40, Templates: 2, Brands: 2, Seed: 12}))
	scopes := "catalog:read,catalog:submit"
	oldCLI(t, old, dir, &keyA, "apikey", "create", "--org", fmt.Sprint(orgA.ID), "--scopes", scopes, "--rate-limit", "0", "--name", "vendor a", "--json")
	oldCLI(t, old, dir, &keyB, "apikey", "create", "--org", fmt.Sprint(orgB.ID), "--scopes", scopes, "--json")
	oldCLI(t, old, dir, &revoked, "apikey", "create", "--org", fmt.Sprint(orgA.ID), "--scopes", scopes, "--json")
	oldCLI(t, old, dir, nil, "apikey", "revoke", fmt.Sprint(revoked.ID))
	oldCLI(t, old, dir, &rotated, "apikey", "create", "--org", fmt.Sprint(orgA.ID), "--scopes", scopes, "--json")
	var rotatedNew created
	oldCLI(t, old, dir, &rotatedNew, "apikey", "rotate", fmt.Sprint(rotated.ID), "--grace", "24h", "--json")
	oldCLI(t, old, dir, nil, "superuser", "upsert", "root@example.com", "upgrade-password-1")

	srv := startServeOf(t, old, dir)
	api := srv.base + "/api/enrichment"
	skus := func(key string, n int) []string {
		var page struct{ Items []struct{ SKU string } }
		if err := json.Unmarshal(mustGet(t, api+"/products?pageSize="+fmt.Sprint(n), key, 200), &page); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, p := range page.Items {
			out = append(out, p.SKU)
		}
		return out
	}
	submitBody := func(skus []string) []byte {
		var items []string
		for i, sku := range skus {
			items = append(items, fmt.Sprintf(`{"sku":%q,"confidence":%d,"name":"Better %d","description":"Longer text %d.",
				"attributes":[{"attribute":"Color","detail":"Teal %d","option":null}]}`, sku, 30+i*7%70, i, i, i))
		}
		return []byte(`{"externalSubmissionId":"batch-1","items":[` + strings.Join(items, ",") + `]}`)
	}
	proposedA := skus(keyA.Key, 8)
	batchA := submitBody(proposedA)
	first := send(http.MethodPost, api+"/products/submissions", keyA.Key, batchA)
	ids, err := parseIDs(first.body)
	if first.status != 200 || err != nil || len(ids) != 8 {
		t.Fatalf("submission to the previous release: %d %v %s", first.status, err, first.body)
	}
	// the id after the items: this release hashes such a body as it streams in
	batchB := submitBody(skus(keyB.Key, 3))
	batchB = []byte(strings.Replace(string(batchB), `{"externalSubmissionId":"batch-1","items":`, `{"items":`, 1))
	batchB = append(batchB[:len(batchB)-1], []byte(`, "externalSubmissionId": "batch-b"}`)...)
	firstB := send(http.MethodPost, api+"/products/submissions", keyB.Key, batchB)
	if firstB.status != 200 {
		t.Fatalf("submission of B: %d %s", firstB.status, firstB.body)
	}
	token := signIn(t, srv.base, "_superusers", "root@example.com", "upgrade-password-1")
	decide := func(base string, id int64, body string) answer {
		return pbJSON(http.MethodPatch, fmt.Sprintf("%s/api/collections/revisions/records/%d", base, id), token, json.RawMessage(body))
	}
	for i, body := range []string{`{"status":"accepted"}`, `{"status":"accepted","approvedFields":["name"]}`, `{"status":"rejected"}`} {
		if a := decide(srv.base, ids[i], body); a.status != 200 {
			t.Fatalf("decide %d on the previous release: %d %s", ids[i], a.status, a.body)
		}
	}
	keys := map[string]string{"A": keyA.Key, "B": keyB.Key, "A rotated": rotatedNew.Key}
	before := snapshot(t, srv.base, keys)
	srv.stop()

	// this release, on the same folder: migrations run at start, and the
	// folder is replicated from then on
	replicaURL := "file://" + filepath.Join(t.TempDir(), "replica")
	srv = startServeEnv(t, bin, dir, []string{"ENRICHMENT_REPLICA_URL=" + replicaURL})
	api = srv.base + "/api/enrichment"
	after := snapshot(t, srv.base, keys)
	for name, v := range before {
		for _, d := range extends(v, after[name], name) {
			t.Errorf("after the upgrade: %s", d)
		}
	}
	// the states this release adds: decisions made before closed their
	// revisions when they were made
	var revisions struct {
		Items []struct {
			Status               string
			ReviewedAt, ClosedAt *string
		}
	}
	if err := json.Unmarshal(mustGet(t, api+"/revisions?pageSize=500", keyA.Key, 200), &revisions); err != nil {
		t.Fatal(err)
	}
	for i, r := range revisions.Items {
		if (r.Status == "pending") != (r.ClosedAt == nil) || (r.ReviewedAt != nil && (r.ClosedAt == nil || *r.ClosedAt != *r.ReviewedAt)) {
			t.Errorf("revision %d after the upgrade: %s, reviewed %v, closed %v", i, r.Status, r.ReviewedAt, r.ClosedAt)
		}
	}
	// finer decisions: the revisions decided before show each proposed
	// attribute in the state their attributes field had, and the metrics
	// count them per field
	var finer struct {
		Items []struct {
			ID         int64
			Fields     map[string]string
			Attributes map[string]string
		}
	}
	if err := json.Unmarshal(mustGet(t, api+"/revisions?pageSize=500", keyA.Key, 200), &finer); err != nil {
		t.Fatal(err)
	}
	wantAttributes := map[int64]string{ids[0]: "applied", ids[1]: "not_applied", ids[2]: "not_applied", ids[3]: "pending"}
	for _, r := range finer.Items {
		if want, ok := wantAttributes[r.ID]; ok && (r.Attributes["Color"] != want || r.Fields["attributes"] != want || len(r.Attributes) != 1) {
			t.Errorf("revision %d after the upgrade: fields %v, attributes %v; want Color and the attributes field %s", r.ID, r.Fields, r.Attributes, want)
		}
	}
	var metrics struct {
		Corrected int
		ByField   []struct {
			Field                        string
			Proposed, Applied, Corrected int
		}
	}
	if err := json.Unmarshal(mustGet(t, api+"/acceptance-rate", keyA.Key, 200), &metrics); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(metrics.Corrected, metrics.ByField); got != "0 [{name 3 2 0} {slug 0 0 0} {description 3 1 0} {attributes 3 1 0} {files 0 0 0}]" {
		t.Errorf("metrics per field after the upgrade: %s", got)
	}
	if status, _ := get(api+"/attribute-templates", rotated.Key); status != 200 {
		t.Errorf("a rotated-out key in its grace period: %d after the upgrade", status)
	}
	if status, _ := get(api+"/attribute-templates", revoked.Key); status != 401 {
		t.Errorf("a revoked key: %d after the upgrade, want 401", status)
	}
	for _, retry := range []struct {
		key         string
		batch, want []byte
	}{{keyA.Key, batchA, first.body}, {keyB.Key, batchB, firstB.body}} {
		replay := send(http.MethodPost, api+"/products/submissions", retry.key, retry.batch)
		if replay.status != 200 || replay.header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(replay.body, retry.want) {
			t.Errorf("the idempotent retry after the upgrade: %d %q %s", replay.status, replay.header.Get("Idempotent-Replayed"), replay.body)
		}
	}
	token = signIn(t, srv.base, "_superusers", "root@example.com", "upgrade-password-1")
	if a := decide(srv.base, ids[0], `{"status":"rejected"}`); a.status != 400 {
		t.Errorf("changing a decision made before the upgrade: %d %s, want 400", a.status, a.body)
	}
	if a := decide(srv.base, ids[3], `{"status":"accepted"}`); a.status != 200 {
		t.Errorf("deciding a revision left pending before the upgrade: %d %s", a.status, a.body)
	}

	// the previous release stored no import digests: re-importing its
	// catalog compares the rows and writes only the products that differ
	// from the file: the two whose proposals it accepted (accepted values
	// are remembered from this release on) and the one accepted just now
	beforeImport := lastProductWrite(t, dir)
	var counts importCounts
	cliJSON(t, dir, &counts, "import", "--org", fmt.Sprint(orgA.ID), catalogA, "--json")
	if want := (importCounts{Updated: 2, Unchanged: 598, KeptEnriched: 1}); counts != want {
		t.Errorf("re-import of the previous release's catalog: %+v, want %+v", counts, want)
	}
	want := []string{proposedA[0], proposedA[1]}
	slices.Sort(want)
	if changed := modifiedSince(t, api, keyA.Key, beforeImport); !slices.Equal(changed, want) {
		t.Errorf("after re-importing the previous release's catalog, modifiedSince lists %v, want %v", changed, want)
	}
	cliJSON(t, dir, &counts, "import", "--org", fmt.Sprint(orgA.ID), catalogA, "--json")
	if want := (importCounts{Unchanged: 600, KeptEnriched: 1}); counts != want {
		t.Errorf("the same catalog again: %+v, want %+v", counts, want)
	}

	final := snapshot(t, srv.base, keys)
	// the upgrade turned PocketBase's rate limiter on for sign-in
	throttled := false
	for i := 0; i < 30 && !throttled; i++ {
		a := pbJSON(http.MethodPost, srv.base+"/api/collections/_superusers/auth-with-password", "",
			map[string]string{"identity": "root@example.com", "password": fmt.Sprintf("guess-%d", i)})
		throttled = a.status == http.StatusTooManyRequests
	}
	if !throttled {
		t.Errorf("30 wrong superuser passwords after the upgrade, none refused with 429")
	}
	srv.stop()
	srv.checkNoSQLEcho()
	for _, ttl := range column(t, openReadOnly(t, dir), "SELECT proposalTtlDays FROM organizations") {
		if ttl != "90" {
			t.Errorf("an organization of the previous release keeps proposals %s days, want the default 90", ttl)
		}
	}

	// the upgraded folder, restored from its replica, serves the same
	restored := t.TempDir()
	cli(t, restored, "restore", "--from", replicaURL)
	srv = startServe(t, restored)
	again := snapshot(t, srv.base, keys)
	for name, v := range final {
		for _, d := range extends(v, again[name], name) {
			t.Errorf("restored from the replica: %s", d)
		}
	}
}
