package enrichment

import (
	"encoding/json/jsontext"
	"encoding/json/v2"
	"slices"
	"testing"
	"time"
)

func TestDecidePerField(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	text := func(s string) *string { return &s }
	attrs := []StoredAttribute{{Attribute: "Color", Detail: "Red"}, {Attribute: "Size", Detail: "44"}, {Attribute: "Color", Detail: "Rouge"}}
	files := []string{"a.pdf"}
	proposed := Fields{Name: text("Runner"), Description: text("Light."), Attributes: &attrs, Files: &files}
	rev := func(superseded []string, supersededAttrs ...string) UnderReview {
		return UnderReview{Status: StatusPending, Created: now.Add(-time.Hour), Proposed: proposed,
			Superseded: superseded, SupersededAttributes: supersededAttrs}
	}
	obj := func(s string) map[string]jsontext.Value {
		m, err := ParseObject("x", []byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	strict := ReviewPolicy{RequireReason: true}
	cases := []struct {
		name        string
		rev         UnderReview
		d           Decision
		policy      ReviewPolicy
		fields      []string
		attributes  []string
		corrections string // as applied, JSON
		values      string // the attributes to write, JSON
		field, rule string // of a refusal
	}{
		{name: "one attribute", rev: rev(nil), d: Decision{Status: StatusAccepted, ApprovedFields: []string{"attributes.Size"}},
			fields: []string{"attributes"}, attributes: []string{"Size"}, values: `[{"attribute":"Size","detail":"44"}]`},
		{name: "an attribute by name takes every element of that name", rev: rev(nil),
			d:      Decision{Status: StatusAccepted, ApprovedFields: []string{"name", "attributes.Color"}},
			fields: []string{"name", "attributes"}, attributes: []string{"Color"},
			values: `[{"attribute":"Color","detail":"Red"},{"attribute":"Color","detail":"Rouge"}]`},
		{name: "attributes alone skips the superseded attribute", rev: rev(nil, "Color"),
			d:      Decision{Status: StatusAccepted, ApprovedFields: []string{"attributes"}, Reason: "other"},
			fields: []string{"attributes"}, attributes: []string{"Size"}, values: `[{"attribute":"Size","detail":"44"}]`},
		{name: "accept all skips the superseded attribute", rev: rev(nil, "Size"), d: Decision{Status: StatusAccepted},
			fields: []string{"name", "description", "attributes", "files"}, attributes: []string{"Color"}},
		{name: "a Version 2 superseded attributes field supersedes every attribute", rev: rev([]string{"attributes"}),
			d: Decision{Status: StatusAccepted, ApprovedFields: []string{"attributes.Size"}}, field: "approvedFields", rule: "validation_field_superseded"},
		{name: "a superseded attribute", rev: rev(nil, "Size"), d: Decision{Status: StatusAccepted, ApprovedFields: []string{"attributes.Size"}},
			field: "approvedFields", rule: "validation_field_superseded"},
		{name: "an attribute not proposed", rev: rev(nil), d: Decision{Status: StatusAccepted, ApprovedFields: []string{"attributes.size"}},
			field: "approvedFields", rule: "validation_not_proposed"},
		{name: "part of the attributes is a partial approval", rev: rev(nil), policy: strict,
			d:     Decision{Status: StatusAccepted, ApprovedFields: []string{"name", "description", "files", "attributes.Size"}},
			field: "reason", rule: "validation_reason_required"},
		{name: "every attribute one by one is not partial", rev: rev(nil), policy: strict,
			d:      Decision{Status: StatusAccepted, ApprovedFields: []string{"name", "description", "files", "attributes.Size", "attributes.Color"}},
			fields: []string{"name", "description", "attributes", "files"}, attributes: []string{"Color", "Size"}},
		{name: "corrections, in API order", rev: rev(nil),
			d:      Decision{Status: StatusAccepted, Corrections: obj(`{"files":["b.pdf"],"attributes.Color":"Navy","name":"Runner Max"}`)},
			fields: []string{"name", "description", "attributes", "files"}, attributes: []string{"Color", "Size"},
			corrections: `{"name":"Runner Max","attributes.Color":"Navy","files":["b.pdf"]}`,
			values:      `[{"attribute":"Color","detail":"Navy"},{"attribute":"Size","detail":"44"},{"attribute":"Color","detail":"Navy"}]`},
		{name: "a correction of a field not approved", rev: rev(nil),
			d:     Decision{Status: StatusAccepted, ApprovedFields: []string{"name"}, Reason: "other", Corrections: obj(`{"description":"x"}`)},
			field: "corrections", rule: "validation_correction_not_applied"},
		{name: "a correction of a superseded field", rev: rev([]string{"name"}),
			d: Decision{Status: StatusAccepted, Corrections: obj(`{"name":"x"}`)}, field: "corrections", rule: "validation_correction_not_applied"},
		{name: "a correction of all attributes at once", rev: rev(nil),
			d: Decision{Status: StatusAccepted, Corrections: obj(`{"attributes":"x"}`)}, field: "corrections", rule: "validation_correct_one_attribute"},
		{name: "a correction of no field", rev: rev(nil),
			d: Decision{Status: StatusAccepted, Corrections: obj(`{"brand":"x"}`)}, field: "corrections", rule: "validation_unknown_field"},
		{name: "a blank correction", rev: rev(nil),
			d: Decision{Status: StatusAccepted, Corrections: obj(`{"name":"  "}`)}, field: "corrections", rule: "validation_invalid_correction"},
		{name: "an empty list of files", rev: rev(nil),
			d: Decision{Status: StatusAccepted, Corrections: obj(`{"files":[]}`)}, field: "corrections", rule: "validation_invalid_correction"},
		{name: "a number for a name", rev: rev(nil),
			d: Decision{Status: StatusAccepted, Corrections: obj(`{"name":5}`)}, field: "corrections", rule: "validation_invalid_correction"},
		{name: "a correction with a rejection", rev: rev(nil),
			d: Decision{Status: StatusRejected, Corrections: obj(`{"name":"x"}`)}, field: "corrections", rule: "validation_correction_not_applied"},
		{name: "reasons per field satisfy the required reason", rev: rev(nil), policy: strict,
			d:      Decision{Status: StatusAccepted, ApprovedFields: []string{"name"}, FieldReasons: obj(`{"attributes.Size":"inaccurate"}`)},
			fields: []string{"name"}},
		{name: "a reason for the attributes field when none is applied", rev: rev(nil),
			d:      Decision{Status: StatusAccepted, ApprovedFields: []string{"name"}, FieldReasons: obj(`{"attributes":"off_brand"}`)},
			fields: []string{"name"}},
		{name: "a reason for the attributes field when one is applied", rev: rev(nil),
			d:     Decision{Status: StatusAccepted, ApprovedFields: []string{"attributes.Size"}, FieldReasons: obj(`{"attributes":"off_brand"}`)},
			field: "fieldReasons", rule: "validation_reason_not_allowed"},
		{name: "a reason that is not a string", rev: rev(nil),
			d: Decision{Status: StatusRejected, FieldReasons: obj(`{"name":1}`)}, field: "fieldReasons", rule: "validation_invalid_reason"},
		{name: "a reason for a field not proposed", rev: rev(nil),
			d: Decision{Status: StatusRejected, FieldReasons: obj(`{"slug":"other"}`)}, field: "fieldReasons", rule: "validation_not_proposed"},
		{name: "reasons per field without a decision", rev: rev(nil),
			d: Decision{Status: StatusPending, FieldReasons: obj(`{}`)}, field: "fieldReasons", rule: "validation_no_decision"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			applied, decided, err := Decide(c.rev, c.d, c.policy, now)
			if c.rule != "" {
				if e, ok := AsError(err); !ok || e.Rule != c.rule || e.Field != c.field {
					t.Fatalf("err = %v (%+v), want %s on %s", err, e, c.rule, c.field)
				}
				return
			}
			if err != nil || !decided {
				t.Fatalf("refused: %v", err)
			}
			if !slices.Equal(applied.Fields, c.fields) || !slices.Equal(applied.Attributes, c.attributes) {
				t.Errorf("applied %v %v, want %v %v", applied.Fields, applied.Attributes, c.fields, c.attributes)
			}
			if c.corrections != "" {
				if got, _ := json.Marshal(applied.Corrections); string(got) != c.corrections {
					t.Errorf("corrections %s, want %s", got, c.corrections)
				}
			}
			if c.values != "" {
				if got, _ := json.Marshal(applied.Values.Attributes); string(got) != c.values {
					t.Errorf("attributes to write %s, want %s", got, c.values)
				}
			}
			if (*proposed.Attributes)[0].Detail != "Red" {
				t.Fatal("a correction changed the proposal itself")
			}
		})
	}
}

func TestParseObject(t *testing.T) {
	for raw, ok := range map[string]bool{``: true, `null`: true, `{}`: true, `{"a":"b"}`: true, `"x"`: false, `[]`: false, `1`: false, `{`: false} {
		_, err := ParseObject("corrections", []byte(raw))
		if (err == nil) != ok {
			t.Errorf("%q: err %v", raw, err)
		}
	}
}

func TestSupersedeAttributes(t *testing.T) {
	older := &ProposalState{ID: 1, Product: "p", Fields: []string{"name", "attributes"}, Attributes: []string{"Color", "Size"}, Status: StatusPending}
	v2 := &ProposalState{ID: 2, Product: "q", Fields: []string{"attributes"}, Attributes: []string{"Color"},
		Superseded: []string{"attributes"}, Status: StatusPending}
	Supersede([]*ProposalState{older, v2}, []*ProposalState{
		{ID: 3, Product: "p", Fields: []string{"attributes"}, Attributes: []string{"Color", "Weight"}, Status: StatusPending},
		{ID: 4, Product: "q", Fields: []string{"attributes"}, Attributes: []string{"Color"}, Status: StatusPending}})
	if !slices.Equal(older.SupersededAttributes, []string{"Color"}) || len(older.Superseded) != 0 || older.Status != StatusPending || !older.Changed {
		t.Fatalf("after Color: %+v", older)
	}
	if v2.Changed || v2.SupersededAttributes != nil {
		t.Errorf("a Version 2 revision whose attributes were all superseded changed: %+v", v2)
	}
	Supersede([]*ProposalState{older}, []*ProposalState{{ID: 5, Product: "p", Fields: []string{"attributes"}, Attributes: []string{"Size"}, Status: StatusPending}})
	if !slices.Equal(older.Superseded, []string{"attributes"}) || older.Status != StatusPending {
		t.Fatalf("after Size: %+v", older)
	}
	Supersede([]*ProposalState{older}, []*ProposalState{{ID: 6, Product: "p", Fields: []string{"name"}, Status: StatusPending}})
	if older.Status != StatusSuperseded || older.SupersededBy != 6 || !slices.Equal(older.Superseded, []string{"name", "attributes"}) {
		t.Fatalf("after name: %+v", older)
	}
}

func TestOutcomes(t *testing.T) {
	attrs := []string{"Color", "Size", "Fit"}
	all := []string{"name", "attributes"}
	cases := []struct {
		name               string
		rec                Recorded
		fields, attributes string
	}{
		{name: "pending", rec: Recorded{Status: StatusPending, Proposed: all, ProposedAttributes: attrs, SupersededAttributes: []string{"Fit"}},
			fields: `{"name":"pending","attributes":"pending"}`, attributes: `{"Color":"pending","Size":"pending","Fit":"superseded"}`},
		{name: "a Version 2 acceptance of everything", rec: Recorded{Status: StatusAccepted, Proposed: all, ProposedAttributes: attrs},
			fields: `{"name":"applied","attributes":"applied"}`, attributes: `{"Color":"applied","Size":"applied","Fit":"applied"}`},
		{name: "a Version 2 acceptance without attributes", rec: Recorded{Status: StatusAccepted, Proposed: all, ProposedAttributes: attrs, Approved: []string{"name"}},
			fields: `{"name":"applied","attributes":"not_applied"}`, attributes: `{"Color":"not_applied","Size":"not_applied","Fit":"not_applied"}`},
		{name: "a Version 2 overwrite of the attributes", rec: Recorded{Status: StatusAccepted, Proposed: all, ProposedAttributes: attrs,
			Approved: all, Overwritten: []string{"attributes"}},
			fields: `{"name":"applied","attributes":"overwritten"}`, attributes: `{"Color":"overwritten","Size":"overwritten","Fit":"overwritten"}`},
		{name: "some attributes, one corrected, one overwritten", rec: Recorded{Status: StatusAccepted, Proposed: all, ProposedAttributes: attrs,
			Approved: all, ApprovedAttributes: []string{"Color", "Size"}, Corrected: []string{"name", "attributes.Color"},
			Overwritten: []string{"attributes"}, OverwrittenAttributes: []string{"Size"}},
			fields: `{"name":"corrected","attributes":"partly_applied"}`, attributes: `{"Color":"corrected","Size":"overwritten","Fit":"not_applied"}`},
		{name: "an attribute superseded: partly applied", rec: Recorded{Status: StatusAccepted, Proposed: all, ProposedAttributes: attrs,
			Approved: []string{"attributes"}, ApprovedAttributes: []string{"Color", "Size"}, SupersededAttributes: []string{"Fit"}},
			fields: `{"name":"not_applied","attributes":"partly_applied"}`, attributes: `{"Color":"applied","Size":"applied","Fit":"superseded"}`},
		{name: "rejected", rec: Recorded{Status: StatusRejected, Proposed: all, ProposedAttributes: attrs},
			fields: `{"name":"not_applied","attributes":"not_applied"}`, attributes: `{"Color":"not_applied","Size":"not_applied","Fit":"not_applied"}`},
		{name: "expired", rec: Recorded{Status: StatusExpired, Proposed: all, ProposedAttributes: attrs},
			fields: `{"name":"expired","attributes":"expired"}`, attributes: `{"Color":"expired","Size":"expired","Fit":"expired"}`},
		{name: "no attributes", rec: Recorded{Status: StatusAccepted, Proposed: []string{"name"}},
			fields: `{"name":"applied"}`, attributes: `{}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, a := Outcomes(c.rec)
			gotF, _ := json.Marshal(f)
			gotA, _ := json.Marshal(a)
			if string(gotF) != c.fields || string(gotA) != c.attributes {
				t.Errorf("fields %s attributes %s\nwant   %s attributes %s", gotF, gotA, c.fields, c.attributes)
			}
		})
	}
}

func TestFieldMask(t *testing.T) {
	m := NewFieldMask([]string{"name", "attributes", "files"}, []string{"name", "attributes"}, []string{"attributes.Color"})
	var got []string
	for i, f := range EnrichableFields {
		got = append(got, f+":"+map[bool]string{true: "p", false: "-"}[m.Proposed(i)]+
			map[bool]string{true: "a", false: "-"}[m.Applied(i)]+map[bool]string{true: "c", false: "-"}[m.Corrected(i)])
	}
	want := []string{"name:pa-", "slug:---", "description:---", "attributes:pac", "files:p--"}
	if !slices.Equal(got, want) || !m.AnyCorrected() || NewFieldMask([]string{"name"}, nil, nil).AnyCorrected() {
		t.Errorf("mask %b: %v, want %v", m, got, want)
	}
}
