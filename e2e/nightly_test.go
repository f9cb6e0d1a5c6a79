package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/catalog"
	"github.com/catalog-enrichment/enrichment/catalog/gen"
)

// catalogFile is a catalog file as the tests edit it.
type catalogFile struct {
	AttributeTemplates []catalog.Template `json:"attributeTemplates"`
	Products           []catalog.Product  `json:"products"`
}

// write stores the catalog as a file in a temporary folder.
func (c catalogFile) write(t *testing.T, name string) string {
	t.Helper()
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// importCounts is what `import --json` prints.
type importCounts struct {
	Created, Updated, Unchanged, KeptEnriched, Deactivated int
}

// modifiedSince lists the SKUs of the export's products updated after at.
func modifiedSince(t *testing.T, api, key string, at time.Time) []string {
	t.Helper()
	var page struct{ Items []struct{ SKU string } }
	url := fmt.Sprintf("%s/products?pageSize=500&modifiedSince=%d", api, at.UnixMilli())
	if err := json.Unmarshal(mustGet(t, url, key, http.StatusOK), &page); err != nil {
		t.Fatal(err)
	}
	var skus []string
	for _, p := range page.Items {
		skus = append(skus, p.SKU)
	}
	slices.Sort(skus)
	return skus
}

// lastProductWrite is the moment of the latest product write stored in
// dir (its products' greatest updated): modifiedSince of that moment lists
// what later writes change, without waiting for the clock to pass the
// earlier ones (a later write, by another process, is milliseconds later).
func lastProductWrite(t *testing.T, dir string) time.Time {
	t.Helper()
	var stamp string
	if err := openReadOnly(t, dir).QueryRow(`SELECT MAX(updated) FROM products`).Scan(&stamp); err != nil {
		t.Fatal(err)
	}
	at, err := time.Parse("2006-01-02 15:04:05.000Z", stamp)
	if err != nil {
		t.Fatalf("the products' last update %q: %v", stamp, err)
	}
	return at
}

// TestNightlyImportCycle is a merchant's night: the ERP's feed is imported,
// a vendor proposes, reviewers decide, and the next night the same feed
// (which has not caught up) is imported again, then a feed that did
// change. A vendor syncing with modifiedSince downloads only what really
// changed, accepted values stay until the feed changes them, and the
// vendor is told when it did.
func TestNightlyImportCycle(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	if err := gen.Write(&buf, gen.Options{Products: 300, Templates: 3, Brands: 4, Seed: 21}); err != nil {
		t.Fatal(err)
	}
	var feed catalogFile
	if err := json.Unmarshal(buf.Bytes(), &feed); err != nil {
		t.Fatal(err)
	}
	night1 := feed.write(t, "night1.json")

	var org, key struct {
		ID  int64  `json:"id"`
		Key string `json:"key"`
	}
	cliJSON(t, dir, &org, "org", "create", "--name", "Nightly", "--json")
	orgID := fmt.Sprint(org.ID)
	var counts importCounts
	cliJSON(t, dir, &counts, "import", "--org", orgID, night1, "--json")
	if counts.Created != 300 {
		t.Fatalf("first import: %+v", counts)
	}
	cliJSON(t, dir, &key, "apikey", "create", "--org", orgID, "--scopes", "catalog:read,catalog:submit", "--rate-limit", "0", "--json")
	cli(t, dir, "superuser", "upsert", "root@example.com", "nightly-password-1")

	srv := startServe(t, dir)
	defer srv.stop()
	api := srv.base + "/api/enrichment"
	var page struct {
		Items []struct {
			SKU        string
			Attributes []struct{ Attribute, Detail string }
		}
	}
	if err := json.Unmarshal(mustGet(t, api+"/products?pageSize=4", key.Key, http.StatusOK), &page); err != nil || len(page.Items) != 4 {
		t.Fatalf("export: %v %+v", err, page)
	}
	named, attributed, rejected, untouched := page.Items[0].SKU, page.Items[1].SKU, page.Items[2].SKU, page.Items[3].SKU
	attribute := page.Items[1].Attributes[0].Attribute
	body := fmt.Sprintf(`{"items": [
		{"sku": %q, "name": "A much better name"},
		{"sku": %q, "attributes": [{"attribute": %q, "detail": "Better detail"}]},
		{"sku": %q, "description": "Not good enough."}]}`, named, attributed, attribute, rejected)
	a := send(http.MethodPost, api+"/products/submissions", key.Key, []byte(body))
	ids, err := parseIDs(a.body)
	if a.status != http.StatusOK || err != nil || len(ids) != 3 {
		t.Fatalf("submission: %d %v %s", a.status, err, a.body)
	}
	token := signIn(t, srv.base, "_superusers", "root@example.com", "nightly-password-1")
	for i, status := range []string{"accepted", "accepted", "rejected"} {
		url := fmt.Sprintf("%s/api/collections/revisions/records/%d", srv.base, ids[i])
		if d := pbJSON(http.MethodPatch, url, token, map[string]string{"status": status}); d.status != http.StatusOK {
			t.Fatalf("decide %d: %d %s", ids[i], d.status, d.body)
		}
	}
	afterReview := lastProductWrite(t, dir)

	// night 2: the feed has not caught up
	cliJSON(t, dir, &counts, "import", "--org", orgID, night1, "--json")
	if want := (importCounts{Unchanged: 300, KeptEnriched: 2}); counts != want {
		t.Errorf("the stale feed: %+v, want %+v", counts, want)
	}
	if changed := modifiedSince(t, api, key.Key, afterReview); len(changed) != 0 {
		t.Errorf("after the stale feed, modifiedSince lists %v", changed)
	}
	var lookup struct {
		Items []struct {
			SKU        string
			Name       string
			Attributes []struct{ Attribute, Detail string }
		}
	}
	skus := fmt.Sprintf(`{"skus": [%q, %q]}`, named, attributed)
	if l := send(http.MethodPost, api+"/products/skus", key.Key, []byte(skus)); l.status != 200 || json.Unmarshal(l.body, &lookup) != nil {
		t.Fatalf("lookup: %d %s", l.status, l.body)
	}
	for _, p := range lookup.Items {
		if p.SKU == named && p.Name != "A much better name" {
			t.Errorf("%s lost its accepted name: %q", named, p.Name)
		}
		if p.SKU == attributed && !slices.Contains(p.Attributes, struct{ Attribute, Detail string }{attribute, "Better detail"}) {
			t.Errorf("%s lost its accepted attribute: %+v", attributed, p.Attributes)
		}
	}

	// night 3: the feed changed the enriched name and an untouched product
	beforeNight3 := lastProductWrite(t, dir)
	for i := range feed.Products {
		switch feed.Products[i].SKU {
		case named:
			feed.Products[i].Name = "The ERP's new name"
		case untouched:
			feed.Products[i].Description += " Now with a longer warranty."
		}
	}
	cliJSON(t, dir, &counts, "import", "--org", orgID, feed.write(t, "night3.json"), "--json")
	if want := (importCounts{Updated: 2, Unchanged: 298, KeptEnriched: 1}); counts != want {
		t.Errorf("the changed feed: %+v, want %+v", counts, want)
	}
	want := []string{named, untouched}
	slices.Sort(want)
	if changed := modifiedSince(t, api, key.Key, beforeNight3); !slices.Equal(changed, want) {
		t.Errorf("after the changed feed, modifiedSince lists %v, want %v", changed, want)
	}
	var revisions struct {
		Items []struct {
			ID     int64
			Fields map[string]string
		}
	}
	if err := json.Unmarshal(mustGet(t, api+"/revisions", key.Key, http.StatusOK), &revisions); err != nil {
		t.Fatal(err)
	}
	wantFields := map[int64]map[string]string{
		ids[0]: {"name": "overwritten"},
		ids[1]: {"attributes": "applied"},
		ids[2]: {"description": "not_applied"},
	}
	for _, r := range revisions.Items {
		if fmt.Sprint(r.Fields) != fmt.Sprint(wantFields[r.ID]) {
			t.Errorf("revision %d: %v, want %v", r.ID, r.Fields, wantFields[r.ID])
		}
	}
}
