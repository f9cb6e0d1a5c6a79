package enrichment

import (
	"slices"
	"testing"
)

func TestSupersede(t *testing.T) {
	state := func(id int64, product string, fields ...string) *ProposalState {
		return &ProposalState{ID: id, Product: product, Fields: fields, Superseded: []string{}, Status: StatusPending}
	}
	type want struct {
		superseded   []string
		status       string
		supersededBy int64
		changed      bool
	}
	cases := []struct {
		name    string
		older   []*ProposalState
		created []*ProposalState
		want    map[int64]want // by id, for every revision
	}{
		{name: "a newer proposal of some fields supersedes those fields only",
			older:   []*ProposalState{state(1, "p", "name", "description")},
			created: []*ProposalState{state(2, "p", "description")},
			want: map[int64]want{1: {superseded: []string{"description"}, status: StatusPending, changed: true},
				2: {superseded: []string{}, status: StatusPending}}},
		{name: "every field superseded supersedes the revision",
			older:   []*ProposalState{state(1, "p", "name", "description")},
			created: []*ProposalState{state(2, "p", "description", "name", "slug")},
			want: map[int64]want{1: {superseded: []string{"name", "description"}, status: StatusSuperseded, supersededBy: 2, changed: true},
				2: {superseded: []string{}, status: StatusPending}}},
		{name: "another product is left alone",
			older:   []*ProposalState{state(1, "p", "name")},
			created: []*ProposalState{state(2, "q", "name")},
			want: map[int64]want{1: {superseded: []string{}, status: StatusPending},
				2: {superseded: []string{}, status: StatusPending}}},
		{name: "fields superseded in two steps, in API order",
			older:   []*ProposalState{state(1, "p", "name", "slug", "files")},
			created: []*ProposalState{state(2, "p", "files"), state(3, "p", "slug"), state(4, "p", "name")},
			want: map[int64]want{1: {superseded: []string{"name", "slug", "files"}, status: StatusSuperseded, supersededBy: 4, changed: true},
				2: {superseded: []string{}, status: StatusPending}, 3: {superseded: []string{}, status: StatusPending},
				4: {superseded: []string{}, status: StatusPending}}},
		{name: "a batch supersedes its own earlier items",
			created: []*ProposalState{state(1, "p", "name"), state(2, "p", "name")},
			want: map[int64]want{1: {superseded: []string{"name"}, status: StatusSuperseded, supersededBy: 2, changed: true},
				2: {superseded: []string{}, status: StatusPending}}},
		{name: "a field superseded before counts once",
			older:   []*ProposalState{{ID: 1, Product: "p", Fields: []string{"name", "slug"}, Superseded: []string{"name"}, Status: StatusPending}},
			created: []*ProposalState{state(2, "p", "name")},
			want: map[int64]want{1: {superseded: []string{"name"}, status: StatusPending},
				2: {superseded: []string{}, status: StatusPending}}},
		{name: "a superseded revision is not superseded again",
			older:   []*ProposalState{state(1, "p", "name")},
			created: []*ProposalState{state(2, "p", "name"), state(3, "p", "name")},
			want: map[int64]want{1: {superseded: []string{"name"}, status: StatusSuperseded, supersededBy: 2, changed: true},
				2: {superseded: []string{"name"}, status: StatusSuperseded, supersededBy: 3, changed: true},
				3: {superseded: []string{}, status: StatusPending}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			Supersede(c.older, c.created)
			for _, p := range slices.Concat(c.older, c.created) {
				w, ok := c.want[p.ID]
				if !ok {
					t.Fatalf("no expectation for revision %d", p.ID)
				}
				if !slices.Equal(p.Superseded, w.superseded) || p.Status != w.status || p.SupersededBy != w.supersededBy || p.Changed != w.changed {
					t.Errorf("revision %d: superseded %v, %s by %d, changed %v; want %v, %s by %d, changed %v",
						p.ID, p.Superseded, p.Status, p.SupersededBy, p.Changed, w.superseded, w.status, w.supersededBy, w.changed)
				}
			}
		})
	}
}
