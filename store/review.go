package store

import (
	"encoding/json/v2"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
	validation "github.com/pocketbase/ozzo-validation/v4"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// The review decision: hooks/revisions.go decides when (a revision record is
// saved), these functions how. The rules are in docs/review.md. Call them on
// a store bound to the transaction that saves the revision.

// ReviewedRevision is what a decision needs of the stored revision.
type ReviewedRevision struct {
	ID         string
	Org        enrichment.Org
	Product    string // "" once the product was deleted
	Status     string
	Created    time.Time
	Proposed   enrichment.Fields
	Superseded []string // proposed fields a newer proposal of the same client replaced
}

// Decision is a reviewer's decision on a revision.
type Decision struct {
	Status         string   // the status asked for
	ApprovedFields []string // when accepting: the fields to apply; empty for all still pending
	Reason         string   // one of enrichment.Reasons, or ""
	Comment        string
}

// RuleRevisionExpired names the refusal of a decision on a revision that
// waited longer than its organization allows: the caller expires it then,
// in a transaction of its own (this one is rolled back).
const RuleRevisionExpired = "validation_revision_expired"

// Decide checks d against the stored revision and, when it accepts, applies
// the approved fields to the product. It returns the fields applied, in API
// order (nil unless accepted), and whether d decided anything (a pending
// revision saved as pending decides nothing). A broken rule is an
// *enrichment.Error; the rules are in docs/review.md.
func (s *Store) Decide(rev ReviewedRevision, d Decision, now time.Time) (applied []string, decided bool, err error) {
	if rev.Status != enrichment.StatusPending {
		return nil, false, enrichment.Invalid("status", "validation_decision_final",
			fmt.Sprintf("This revision was already %s; a decision is final.", rev.Status),
			"A revision that reached a final state cannot change.")
	}
	switch d.Status {
	case enrichment.StatusPending:
		switch {
		case len(d.ApprovedFields) > 0:
			return nil, false, enrichment.Invalid("approvedFields", "validation_not_accepted",
				"Approved fields can only be given when accepting a revision.", "Only an accepted revision has approved fields.")
		case d.Reason != "", d.Comment != "":
			field := "reason"
			if d.Reason == "" {
				field = "comment"
			}
			return nil, false, enrichment.Invalid(field, "validation_no_decision",
				"A reason and a comment can only be given with a decision.", "Set status to accepted or rejected.")
		}
		return nil, false, nil
	case enrichment.StatusAccepted, enrichment.StatusRejected:
	case enrichment.StatusSuperseded, enrichment.StatusExpired:
		return nil, false, enrichment.Invalid("status", "validation_service_status",
			fmt.Sprintf("A revision becomes %s by the service only; a reviewer accepts or rejects it.", d.Status),
			"Must be accepted or rejected.")
	default:
		return nil, false, enrichment.Invalid("status", "validation_invalid_status",
			"A revision can only be accepted or rejected.", "Must be accepted or rejected.")
	}

	policy, err := s.reviewPolicy(rev.Org)
	if err != nil {
		return nil, false, err
	}
	if policy.overdue(rev.Created, now) {
		return nil, false, enrichment.Invalid("status", RuleRevisionExpired,
			fmt.Sprintf("This revision waited longer than %d days for review and has expired; it can no longer be decided.", policy.ttlDays),
			"The revision has expired.")
	}
	if err := checkReasonAndComment(d); err != nil {
		return nil, false, err
	}

	pending := pendingFields(rev)
	if d.Status == enrichment.StatusAccepted {
		applied, err = approve(rev, pending, d.ApprovedFields)
		if err != nil {
			return nil, false, err
		}
	} else if len(d.ApprovedFields) > 0 {
		return nil, false, enrichment.Invalid("approvedFields", "validation_not_accepted",
			"A rejected revision cannot have approved fields.", "Only an accepted revision has approved fields.")
	}

	// something is not applied: a rejection, or an approval of only some
	// of the fields still pending
	notApplied := len(applied) < len(pending)
	switch {
	case d.Reason != "" && !notApplied:
		return nil, false, enrichment.Invalid("reason", "validation_reason_not_allowed",
			"A reason can only be given when something is not applied: a rejection or a partial approval.",
			"Nothing is left unapplied.")
	case d.Reason == "" && notApplied && policy.requireReason:
		return nil, false, enrichment.Invalid("reason", "validation_reason_required",
			"This organization requires a reason when a proposal is rejected or only partly approved.",
			"Must be one of "+strings.Join(enrichment.Reasons, ", ")+".")
	}

	if len(applied) > 0 {
		if err := s.applyToProduct(rev.Org, rev.ID, rev.Product, rev.Proposed, applied); err != nil {
			return nil, false, fmt.Errorf("revision %s: %w", rev.ID, err)
		}
	}
	return applied, true, nil
}

// pendingFields are the proposed fields of rev that no newer proposal
// superseded, in API order.
func pendingFields(rev ReviewedRevision) []string {
	var out []string
	for _, name := range rev.Proposed.Names() {
		if !slices.Contains(rev.Superseded, name) {
			out = append(out, name)
		}
	}
	return out
}

// approve checks the approved fields of an acceptance against what rev
// proposes and still has pending, and returns the fields to apply: the
// approved ones, or every pending one when none is named.
func approve(rev ReviewedRevision, pending, approved []string) ([]string, error) {
	for _, name := range approved {
		switch {
		case !rev.Proposed.Has(name):
			return nil, enrichment.Invalid("approvedFields", "validation_not_proposed",
				fmt.Sprintf("Approved field %q was not proposed.", name), fmt.Sprintf("%q was not proposed.", name))
		case !slices.Contains(pending, name):
			return nil, enrichment.Invalid("approvedFields", "validation_field_superseded",
				fmt.Sprintf("Approved field %q was superseded by a newer proposal of the same client; it cannot be approved.", name),
				fmt.Sprintf("%q was superseded.", name))
		}
	}
	var applied []string
	for _, name := range pending {
		if len(approved) == 0 || slices.Contains(approved, name) {
			applied = append(applied, name)
		}
	}
	if len(applied) == 0 {
		return nil, enrichment.Invalid("status", "validation_nothing_proposed",
			"This revision proposes no fields; it can only be rejected.", "Nothing to accept.")
	}
	return applied, nil
}

// checkReasonAndComment checks the values of a decision's reason and comment.
func checkReasonAndComment(d Decision) error {
	if d.Reason != "" && !slices.Contains(enrichment.Reasons, d.Reason) {
		return enrichment.Invalid("reason", "validation_invalid_reason",
			"A reason must be one of "+strings.Join(enrichment.Reasons, ", ")+".",
			"Must be one of "+strings.Join(enrichment.Reasons, ", ")+".")
	}
	if n := utf8.RuneCountInString(d.Comment); n > enrichment.MaxCommentLength {
		return enrichment.Invalid("comment", "validation_comment_too_long",
			fmt.Sprintf("A comment may have at most %d characters; this one has %d.", enrichment.MaxCommentLength, n),
			fmt.Sprintf("Must be at most %d characters.", enrichment.MaxCommentLength))
	}
	return nil
}

// reviewPolicy is what an organization decided about its review.
type reviewPolicy struct {
	ttlDays       int  // 0: proposals never expire
	requireReason bool // a rejection or partial approval needs a reason
}

// overdue reports whether a revision submitted at created has waited longer
// than the policy allows at now.
func (p reviewPolicy) overdue(created, now time.Time) bool {
	return p.ttlDays > 0 && created.Before(now.Add(-time.Duration(p.ttlDays)*24*time.Hour))
}

func (s *Store) reviewPolicy(org enrichment.Org) (reviewPolicy, error) {
	var row struct {
		TTL           int  `db:"proposalTtlDays"`
		RequireReason bool `db:"requireReason"`
	}
	err := s.db().Select("proposalTtlDays", "requireReason").From(schema.Organizations).
		Where(dbx.HashExp{"id": string(org)}).One(&row)
	if err != nil {
		return reviewPolicy{}, fmt.Errorf("review policy of organization %s: %w", org, err)
	}
	return reviewPolicy{ttlDays: row.TTL, requireReason: row.RequireReason}, nil
}

// applyToProduct writes the named fields of proposed to org's product and
// saves it as a record, so its validation, its update time and its hooks
// apply as to any other change. The values revision set are remembered for
// the catalog import (store/enrichments.go).
func (s *Store) applyToProduct(org enrichment.Org, revision, productID string, proposed enrichment.Fields, fields []string) error {
	product, err := s.app.FindRecordById(schema.Products, productID)
	if err != nil || product.GetString("organization") != string(org) || !product.GetBool("active") {
		return enrichment.Invalid("product", "validation_product_gone",
			"The product of this revision no longer exists or is inactive; it can only be rejected.",
			"The product no longer exists or is inactive.")
	}
	for _, name := range fields {
		switch name {
		case "name":
			product.Set("name", *proposed.Name)
		case "slug":
			product.Set("slug", *proposed.Slug)
		case "description":
			product.Set("description", *proposed.Description)
		case "files":
			product.Set("files", *proposed.Files)
		case "attributes":
			if err := s.mergeAttributes(org, product, *proposed.Attributes); err != nil {
				return err
			}
		}
	}
	if err := s.app.Save(product); err != nil {
		var invalid validation.Errors
		if errors.As(err, &invalid) {
			e := enrichment.Invalid("product", "validation_cannot_apply",
				"The approved fields cannot be applied to the product.", "The product cannot store the approved fields.")
			e.Details = invalid
			return e
		}
		return fmt.Errorf("save product %s: %w", product.Id, err)
	}
	return s.rememberAccepted(org, revision, product, fields)
}

// mergeAttributes replaces or adds the proposed attributes by attribute name
// in product's list. An attribute linked to a template option keeps that
// link; an unlinked one takes the proposed option (when it is one of the
// organization's) or else the option of the product's template with its name.
func (s *Store) mergeAttributes(org enrichment.Org, product *core.Record, proposed []enrichment.StoredAttribute) error {
	attrs := []enrichment.StoredAttribute{}
	if raw := product.GetString("attributes"); raw != "" && raw != "null" {
		if err := json.Unmarshal([]byte(raw), &attrs); err != nil {
			return fmt.Errorf("decode attributes of product %s: %w", product.Id, err)
		}
	}
	byName, err := s.templateOptionIDs(org, product.GetString("attributeTemplate"))
	if err != nil {
		return err
	}
	known, err := s.optionRefs(org, unique(appendOptionIDs(nil, proposed)))
	if err != nil {
		return err
	}
	link := func(current int64, p enrichment.StoredAttribute) int64 {
		if current != 0 {
			return current
		}
		if _, ok := known[p.OptionID]; ok {
			return p.OptionID
		}
		return byName[p.Attribute]
	}
	for _, p := range proposed {
		found := false
		for i := range attrs {
			if attrs[i].Attribute == p.Attribute {
				attrs[i].Detail = p.Detail
				attrs[i].OptionID = link(attrs[i].OptionID, p)
				found = true
			}
		}
		if !found {
			attrs = append(attrs, enrichment.StoredAttribute{Attribute: p.Attribute, Detail: p.Detail, OptionID: link(0, p)})
		}
	}
	raw, err := json.Marshal(attrs)
	if err != nil {
		return fmt.Errorf("encode attributes of product %s: %w", product.Id, err)
	}
	product.Set("attributes", types.JSONRaw(raw))
	return nil
}

// templateOptionIDs maps the attribute names of org's template to their
// option ids; empty when template is "".
func (s *Store) templateOptionIDs(org enrichment.Org, template string) (map[string]int64, error) {
	out := map[string]int64{}
	if template == "" {
		return out, nil
	}
	var rows []struct {
		ID        string `db:"id"`
		Attribute string `db:"attribute"`
	}
	err := s.db().Select("id", "attribute").From(schema.AttributeOptions).
		Where(dbx.HashExp{"organization": string(org), "template": template}).All(&rows)
	if err != nil {
		return nil, fmt.Errorf("options of template %s of organization %s: %w", template, org, err)
	}
	for _, r := range rows {
		out[r.Attribute] = ParseID(r.ID)
	}
	return out, nil
}
