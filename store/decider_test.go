package store

import "testing"

// TestDeciderOf checks how a stored actor (a revision's reviewer,
// auditedBy or revertedBy) is named: an account's id by the email its
// query joined, the service and a policy by kind, a name an earlier
// release wrote for an account the upgrade found no more by its email
// without an id, and an id whose account was deleted as deleted; Name is
// what the reviewers' page reads.
func TestDeciderOf(t *testing.T) {
	for _, c := range []struct {
		stored, reviewerEmail, superuserEmail string
		want                                  Decider
		name                                  string
	}{
		{"k3x9w2m1p0q8r7s", "ann@example.com", "", Decider{Kind: "reviewer", ID: "k3x9w2m1p0q8r7s", Email: "ann@example.com"}, "reviewer:ann@example.com"},
		{"pfy0o0bx0uvh01w", "", "root@example.com", Decider{Kind: "superuser", ID: "pfy0o0bx0uvh01w", Email: "root@example.com"}, "superuser:root@example.com"},
		{"system", "", "", Decider{Kind: "system"}, "system"},
		{"policy:3", "", "", Decider{Kind: "policy"}, "policy"},
		{"reviewer:gone@example.com", "", "", Decider{Kind: "reviewer", Email: "gone@example.com"}, "reviewer:gone@example.com"},
		{"superuser:old@example.com", "", "", Decider{Kind: "superuser", Email: "old@example.com"}, "superuser:old@example.com"},
		{"a1b2c3d4e5f6g7h", "", "", Decider{Kind: "deleted", ID: "a1b2c3d4e5f6g7h"}, "a1b2c3d4e5f6g7h"},
	} {
		got := deciderOf(c.stored, c.reviewerEmail, c.superuserEmail)
		if got != c.want || got.Name() != c.name {
			t.Errorf("deciderOf(%q, %q, %q) = %+v named %q, want %+v named %q",
				c.stored, c.reviewerEmail, c.superuserEmail, got, got.Name(), c.want, c.name)
		}
	}
}
