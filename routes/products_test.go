package routes_test

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tests"
)

const exportURL = "/api/enrichment/products"

// activeA is how many active products organization A has.
const activeA = 7 + fixture.BulkProducts

func TestExportShapes(t *testing.T) {
	f := fixture.Get(t)
	a := f.A.Products
	run(t, f, []call{{name: "standalone, master and variant products in full", url: exportURL + "?pageSize=4", key: f.A.Keys["read"], status: 200,
		check: func(t testing.TB, app *tests.TestApp, body []byte) {
			p := decode[page](t, body)
			if p.Page != 0 || p.PageSize != 4 || p.TotalElements != activeA || p.TotalPages != (activeA+3)/4 {
				t.Errorf("envelope = %d/%d/%d/%d", p.Page, p.PageSize, p.TotalElements, p.TotalPages)
			}
			if got, want := p.skus(), []string{"SKU-1", "SKU-M", "SKU-M-RED", "SKU-M-BLUE"}; !slices.Equal(got, want) {
				t.Fatalf("skus = %v, want %v", got, want)
			}
			opt := func(attr string) string { return lookupID(t, app, "attribute_options", "attribute", attr, f.A.Org) }
			shoes := lookupID(t, app, "attribute_templates", "name", "Shoes", f.A.Org)
			acme := lookupID(t, app, "brands", "name", "Acme", f.A.Org)
			color := fmt.Sprintf(`{"optionId":%s,"unit":null,"priority":1,"dataType":"STRING","showOnWebsite":true}`, opt("Color"))
			size := fmt.Sprintf(`{"optionId":%s,"unit":"EU","priority":2,"dataType":"NUMBER","showOnWebsite":true}`, opt("Size"))
			material := fmt.Sprintf(`{"optionId":%s,"unit":null,"priority":3,"dataType":null,"showOnWebsite":false}`, opt("Material"))
			brand := fmt.Sprintf(`{"id":%s,"name":"Acme","website":"https://acme.example","slug":"acme"}`, acme)

			sameJSON(t, "standalone", p.Items[0], fmt.Sprintf(`{"id":%d,"sku":"SKU-1","externalId":"ERP-1","gtin":"04012345678901",
				"name":"Runner","slug":"runner","description":"A light running shoe.","attributeTemplateId":%s,
				"attributes":[{"attribute":"Color","detail":"Red","option":%s},{"attribute":"Fit","detail":"Wide","option":null}],
				"brand":%s,"categories":["Shoes","Running"],"images":["https://img.example/runner.jpg"],
				"files":["https://docs.example/runner.pdf"],"variantAttributes":null,"variants":null,"variantMaster":null,
				"completeness":75,"gaps":["attributes.Size"]}`,
				a["SKU-1"], shoes, color, brand))
			sameJSON(t, "master", p.Items[1], fmt.Sprintf(`{"id":%d,"sku":"SKU-M","externalId":"ERP-M","gtin":"",
				"name":"Trail","slug":"trail","description":"","attributeTemplateId":%s,
				"attributes":[{"attribute":"Material","detail":"Leather","option":%s}],
				"brand":%s,"categories":[],"images":[],"files":[],"variantAttributes":["Color","Size"],
				"variants":[
					{"id":%d,"sku":"SKU-M-RED","name":"Trail Red 42","attributes":[
						{"attribute":"Color","detail":"Red","option":%s},{"attribute":"Size","detail":"42","option":%s}]},
					{"id":%d,"sku":"SKU-M-BLUE","name":"Trail Blue 43","attributes":[
						{"attribute":"Color","detail":"Blue","option":%s},{"attribute":"Size","detail":"43","option":%s}]}],
				"variantMaster":null,"completeness":0,"gaps":["description","images","attributes.Color","attributes.Size"]}`,
				a["SKU-M"], shoes, material, brand, a["SKU-M-RED"], color, size, a["SKU-M-BLUE"], color, size))
			sameJSON(t, "variant", p.Items[2], fmt.Sprintf(`{"id":%d,"sku":"SKU-M-RED","externalId":"","gtin":"",
				"name":"Trail Red 42","slug":"","description":"","attributeTemplateId":%s,
				"attributes":[{"attribute":"Color","detail":"Red","option":%s},{"attribute":"Size","detail":"42","option":%s}],
				"brand":%s,"categories":[],"images":[],"files":[],"variantAttributes":null,"variants":null,"variantMaster":"SKU-M",
				"completeness":50,"gaps":["description","images"]}`,
				a["SKU-M-RED"], shoes, color, size, brand))
		}},
		{name: "a product without template or brand has nulls", url: exportURL + "?pageSize=500", key: f.A.Keys["read"], status: 200,
			content: []string{fmt.Sprintf(`{"id":%d,"sku":"SKU-NEW","externalId":"","gtin":"","name":"Newest","slug":"","description":"","attributeTemplateId":null,"attributes":[],"brand":null,"categories":[],"images":[],"files":[],"variantAttributes":null,"variants":null,"variantMaster":null,"completeness":0,"gaps":["description","images"]}`, a["SKU-NEW"])}},
	})
}

// TestExportWalk reads every page at several sizes, as a client syncing the
// catalog would, and checks the pages add up to the catalog exactly once.
func TestExportWalk(t *testing.T) {
	f, _, h := served(t)
	for _, size := range []int{1, 7, 100, 500} {
		var ids []int64
		var skus []string
		pages := 0
		for pageNo := 0; ; pageNo++ {
			res := request(h, "GET", fmt.Sprintf("%s?page=%d&pageSize=%d", exportURL, pageNo, size), f.A.Keys["read"], "")
			if res.Code != 200 {
				t.Fatalf("page %d: status %d %s", pageNo, res.Code, res.Body)
			}
			p := decode[page](t, res.Body.Bytes())
			if p.TotalElements != activeA || p.TotalPages != (activeA+size-1)/size || p.Page != pageNo || p.PageSize != size {
				t.Fatalf("size %d page %d: envelope %+v", size, pageNo, p)
			}
			if len(p.Items) == 0 {
				break
			}
			pages++
			for _, it := range p.Items {
				ids = append(ids, int64(it["id"].(float64)))
				skus = append(skus, it["sku"].(string))
			}
		}
		if pages != (activeA+size-1)/size || len(ids) != activeA {
			t.Errorf("size %d: %d pages, %d items; want %d items", size, pages, len(ids), activeA)
		}
		if !slices.IsSorted(ids) || len(slices.Compact(slices.Clone(ids))) != len(ids) {
			t.Errorf("size %d: ids not strictly ascending in numeric order", size)
		}
		for _, sku := range []string{"SKU-OLD", "SKU-M-GONE", "B-ONLY"} {
			if slices.Contains(skus, sku) {
				t.Errorf("size %d: export contains %s", size, sku)
			}
		}
	}
}

func TestExportPaging(t *testing.T) {
	f := fixture.Get(t)
	key := f.A.Keys["read"]
	envelope := func(page, size, total, pages int) string {
		return fmt.Sprintf(`"page":%d,"pageSize":%d,"totalElements":%d,"totalPages":%d`, page, size, total, pages)
	}
	run(t, f, []call{
		{name: "defaults", url: exportURL, key: key, status: 200, content: []string{envelope(0, 100, activeA, 3)}},
		{name: "pageSize 0 is clamped to 1", url: exportURL + "?pageSize=0", key: key, status: 200, content: []string{envelope(0, 1, activeA, activeA)}},
		{name: "negative pageSize is clamped to 1", url: exportURL + "?pageSize=-5", key: key, status: 200, content: []string{envelope(0, 1, activeA, activeA)}},
		{name: "pageSize 501 is clamped to 500", url: exportURL + "?pageSize=501", key: key, status: 200, content: []string{envelope(0, 500, activeA, 1)}},
		{name: "huge pageSize is clamped to 500", url: exportURL + "?pageSize=99999999", key: key, status: 200, content: []string{envelope(0, 500, activeA, 1)}},
		{name: "a pageSize past any integer is clamped to 500", url: exportURL + "?pageSize=100000000000000000000", key: key, status: 200,
			content: []string{envelope(0, 500, activeA, 1)}},
		{name: "a page past any integer is past the end", url: exportURL + "?page=99999999999999999999", key: key, status: 200,
			content: []string{`"items":[]`}},
		{name: "page past the end is empty", url: exportURL + "?page=40", key: key, status: 200, content: []string{`"items":[]`, envelope(40, 100, activeA, 3)}},
		{name: "huge page is empty", url: exportURL + "?page=2147483647&pageSize=500", key: key, status: 200, content: []string{`"items":[]`}},
		{name: "page not a number", url: exportURL + "?page=abc", key: key, status: 400, content: []string{`"page":{"code":"validation_not_integer"`}},
		{name: "page a fraction", url: exportURL + "?page=1.5", key: key, status: 400, content: []string{"Invalid page"}},
		{name: "negative page", url: exportURL + "?page=-1", key: key, status: 400, content: []string{`"page":{`}},
		{name: "pageSize not a number", url: exportURL + "?pageSize=ten", key: key, status: 400, content: []string{`"pageSize":{`}},
	})
}

func TestExportModifiedSince(t *testing.T) {
	f := fixture.Get(t)
	key := f.A.Keys["read"]
	family, _ := time.Parse("2006-01-02 15:04:05.000Z", fixture.UpdatedFamily)
	ms := strconv.FormatInt(family.UnixMilli(), 10)
	only := func(skus ...string) func(testing.TB, *tests.TestApp, []byte) {
		return func(t testing.TB, _ *tests.TestApp, body []byte) {
			p := decode[page](t, body)
			got := p.skus()
			slices.Sort(got)
			slices.Sort(skus)
			if !slices.Equal(got, skus) || p.TotalElements != len(skus) {
				t.Errorf("got %v (total %d), want %v", got, p.TotalElements, skus)
			}
		}
	}
	since := func(v string) string { return exportURL + "?pageSize=500&modifiedSince=" + url.QueryEscape(v) }
	newest := only("SKU-NEW")
	recent := only("SKU-M", "SKU-M-RED", "SKU-M-BLUE", "SKU-NEW")
	run(t, f, []call{
		{name: "epoch millis is strict", url: since(ms), key: key, status: 200, check: newest},
		{name: "ISO instant with Z is strict", url: since("2024-06-01T12:00:00Z"), key: key, status: 200, check: newest},
		{name: "ISO instant with milliseconds", url: since("2024-06-01T12:00:00.000Z"), key: key, status: 200, check: newest},
		{name: "ISO instant with offset", url: since("2024-06-01T14:00:00+02:00"), key: key, status: 200, check: newest},
		{name: "local date-time is UTC", url: since("2024-06-01T12:00:00"), key: key, status: 200, check: newest},
		{name: "one millisecond earlier includes the family", url: since(strconv.FormatInt(family.UnixMilli()-1, 10)), key: key, status: 200, check: recent},
		{name: "a month earlier", url: since("2024-05-01T00:00:00Z"), key: key, status: 200, check: recent},
		{name: "the future gives nothing", url: since("2999-01-01T00:00:00Z"), key: key, status: 200, check: only()},
		{name: "epoch 0 gives everything active", url: exportURL + "?modifiedSince=0", key: key, status: 200,
			content: []string{fmt.Sprintf(`"totalElements":%d`, activeA)}},
		{name: "other organization", url: since("2024-05-01T00:00:00Z"), key: f.B.Keys["read"], status: 200, check: only("SKU-1", "B-ONLY")},
		{name: "garbage", url: since("yesterday"), key: key, status: 400,
			content: []string{`"message":"Invalid modifiedSince: expected epoch milliseconds or an ISO-8601 date-time`, `"modifiedSince":{"code":"validation_invalid_time"`}},
		{name: "date without time", url: since("2024-06-01"), key: key, status: 400, content: []string{"modifiedSince"}},
		{name: "negative millis", url: since("-5"), key: key, status: 400, content: []string{"modifiedSince"}},
		{name: "impossible date", url: since("2024-02-30T00:00:00Z"), key: key, status: 400, content: []string{"modifiedSince"}},
	})
}

func TestExportTenancy(t *testing.T) {
	f := fixture.Get(t)
	run(t, f, []call{
		{name: "B's export holds only B's products", url: exportURL + "?pageSize=500", key: f.B.Keys["read"], status: 200,
			check: func(t testing.TB, _ *tests.TestApp, body []byte) {
				p := decode[page](t, body)
				if got := p.skus(); !slices.Equal(got, []string{"SKU-1", "B-ONLY"}) || p.TotalElements != 2 {
					t.Errorf("B export = %v", got)
				}
				if id := int64(p.Items[0]["id"].(float64)); id != f.B.Products["SKU-1"] || id == f.A.Products["SKU-1"] {
					t.Errorf("B's SKU-1 has id %d", id)
				}
			}},
	})
}

// lookupID finds the id of a record of org by one field's value.
func lookupID(t testing.TB, app core.App, collection, field, value string, org enrichment.Org) string {
	t.Helper()
	var id string
	err := app.DB().Select("id").From(collection).
		Where(dbx.HashExp{field: value, "organization": string(org)}).Row(&id)
	if err != nil {
		t.Fatalf("find %s %s=%s: %v", collection, field, value, err)
	}
	return id
}
