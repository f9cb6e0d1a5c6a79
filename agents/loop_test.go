package agents_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/agents"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
)

type (
	page[T any] struct {
		Items         []T `json:"items"`
		TotalElements int `json:"totalElements"`
	}
	template struct {
		Name    string `json:"name"`
		Options []struct {
			Attribute string `json:"attribute"`
		} `json:"options"`
	}
	product struct {
		SKU          string   `json:"sku"`
		Name         string   `json:"name"`
		Description  string   `json:"description"`
		Completeness int      `json:"completeness"`
		Gaps         []string `json:"gaps"`
	}
	gap struct {
		SKU  string   `json:"sku"`
		Gaps []string `json:"gaps"`
	}
	result struct {
		SKU        string `json:"sku"`
		Status     string `json:"status"`
		RevisionID *int64 `json:"revisionId"`
	}
	revision struct {
		ID        int64             `json:"id"`
		SKU       string            `json:"sku"`
		Status    string            `json:"status"`
		DecidedBy *string           `json:"decidedBy"`
		Comment   *string           `json:"comment"`
		Reason    *string           `json:"reason"`
		Fields    map[string]string `json:"fields"`
		Attrs     map[string]string `json:"attributes"`
	}
)

// TestAgentLoop: an agent on the SDK's own Go client connects with the URL
// and a key (as Authorization: Bearer) and runs the vendor's loop: the
// templates, the gaps, the products, a proposal with dryRun (nothing
// stored), the proposal, and, once a reviewer has decided, the feedback.
// Every result holds to its tool's output schema.
func TestAgentLoop(t *testing.T) {
	f := fixture.Get(t)
	s := serve(t, f)
	session := connect(t, s.endpoint, "Authorization", f.A.Keys["both"])
	schemas := outputSchemas(t, session)
	t.Logf("protocol version %s", session.InitializeResult().ProtocolVersion)
	var names []string
	for name := range schemas {
		names = append(names, name)
	}
	slices.Sort(names)
	if want := []string{agents.ToolFindProducts, agents.ToolGetFeedback, agents.ToolGetTemplates, agents.ToolListGaps, agents.ToolPropose}; !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}

	templates := call[struct{ Templates []template }](t, session, schemas, agents.ToolGetTemplates, nil).Templates
	if len(templates) != 1 || templates[0].Name != "Shoes" || len(templates[0].Options) != 3 {
		t.Errorf("templates: %+v", templates)
	}

	gaps := call[page[gap]](t, session, schemas, agents.ToolListGaps, map[string]any{"template": "Shoes", "slot": "attributes.Size"})
	var skus []string
	for _, g := range gaps.Items {
		skus = append(skus, g.SKU)
	}
	if !slices.Equal(skus, []string{"SKU-M", "SKU-1"}) || !slices.Equal(gaps.Items[1].Gaps, []string{"attributes.Size"}) {
		t.Fatalf("gaps of Size in Shoes: %+v", gaps.Items)
	}

	found := call[page[product]](t, session, schemas, agents.ToolFindProducts, map[string]any{"skus": []string{"SKU-1", "NOPE"}})
	if len(found.Items) != 1 || found.Items[0].Name != "Runner" || found.Items[0].Completeness != 75 {
		t.Fatalf("SKU-1 and NOPE: %+v", found)
	}
	trail := call[page[product]](t, session, schemas, agents.ToolFindProducts, map[string]any{"query": "TRAIL", "pageSize": 2})
	if trail.TotalElements != 3 || len(trail.Items) != 2 || trail.Items[0].SKU != "SKU-M" {
		t.Fatalf("query TRAIL, 2 a page: %+v", trail)
	}

	before := time.Now().UTC().Add(-time.Second).Format(time.RFC3339Nano)
	proposal := map[string]any{
		"model": map[string]any{"name": "agent", "version": "1"},
		"items": []any{map[string]any{"sku": "SKU-1", "confidence": 90, "description": "A light running shoe with a wide fit.",
			"attributes": []any{map[string]any{"attribute": "Size", "detail": "44"}}}},
	}
	dry := call[struct{ Results []result }](t, session, schemas, agents.ToolPropose, with(proposal, "dryRun", true)).Results
	if len(dry) != 1 || dry[0].Status != "CREATED" || dry[0].RevisionID != nil {
		t.Fatalf("dry run: %+v", dry)
	}
	if none := call[page[revision]](t, session, schemas, agents.ToolGetFeedback, nil); none.TotalElements != 0 {
		t.Fatalf("a dry run stored revisions: %+v", none)
	}
	stored := call[struct{ Results []result }](t, session, schemas, agents.ToolPropose, proposal).Results
	if len(stored) != 1 || stored[0].RevisionID == nil {
		t.Fatalf("propose: %+v", stored)
	}

	decision := `{"status":"accepted","approvedFields":["description"],"reason":"inaccurate","comment":"Size 44 is not made."}`
	url := fmt.Sprintf("/api/collections/revisions/records/%d", *stored[0].RevisionID)
	if r := fixture.Send(s.h, http.MethodPatch, url, "Authorization", fixture.ReviewerToken(t, s.app, string(f.A.Org)), decision); r.Code != 200 {
		t.Fatalf("decide: %d %s", r.Code, r.Body)
	}
	feedback := call[page[revision]](t, session, schemas, agents.ToolGetFeedback, map[string]any{"since": before})
	if len(feedback.Items) != 1 {
		t.Fatalf("feedback: %+v", feedback)
	}
	rev := feedback.Items[0]
	if rev.ID != *stored[0].RevisionID || rev.Status != "accepted" || rev.Fields["description"] != "applied" ||
		rev.Attrs["Size"] != "not_applied" || rev.Comment == nil || *rev.Comment != "Size 44 is not made." || rev.DecidedBy == nil {
		t.Errorf("feedback: %+v", rev)
	}
	after := call[page[product]](t, session, schemas, agents.ToolFindProducts, map[string]any{"skus": []string{"SKU-1"}})
	if after.Items[0].Description != "A light running shoe with a wide fit." {
		t.Errorf("the accepted description is not the product's: %+v", after.Items[0])
	}
}

// with is args with one more member.
func with(args map[string]any, name string, value any) map[string]any {
	out := map[string]any{name: value}
	for k, v := range args {
		out[k] = v
	}
	return out
}
