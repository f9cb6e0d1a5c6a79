package store

import (
	"encoding/json/v2"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Decisions. Every decision is made here, whoever makes it: a trust
// policy's acceptances, a reviewer's group decision, and one revision
// record saved through the records API or the dashboard (the review hook,
// hooks/revisions.go, translates the record into a set of one decision and
// the outcome back onto the record). The revisions are read with one query
// per kind of row and written with prepared statements in one transaction.
// The rules are enrichment.Decide's, the claims and the product's field
// rules; the effects are the product's values and update time (the change
// feed's trigger, the generation), the accepted values remembered for the
// import, the revision's decision, the metric and trust counters, the
// webhook outbox and the claims ended; realtime and the webhook dispatcher
// hear of them once committed (store/committed.go).

// SetDecision is one decision of a set.
type SetDecision struct {
	Revision string
	// Status, ApprovedFields, Reason, Comment, Corrections, FieldReasons
	enrichment.Decision
	Audit bool // a policy's acceptance drawn for audit
}

// SetDecider is who decides a set.
type SetDecider struct {
	Name     string // as the revisions record it in reviewer: the record id of the reviewer or superuser, or "system"
	Reviewer string // the deciding reviewer's record id: their own claims do not stop them
	Policy   string // the trust policy deciding (decidedBy "policy"); "" for a person
	// Service tells that the service's own code decides (a revision record
	// saved by Go code), not a person: claims do not stop it
	Service bool
	// a refused decision stops the set: those after it are skipped
	StopOnFailure bool
}

// SetOutcome is what became of one decision of a set.
type SetOutcome struct {
	Revision string
	Err      error // why it was refused (a rule's *enrichment.Error); nil when decided or skipped
	Skipped  bool  // not tried: an earlier decision was refused and the set stops on failure
	// nothing to decide: the status asked is pending, as the revision's is
	// (a record saved unchanged); nothing is written
	Undecided bool
	// the decision as stored, when decided
	Status         string
	ApprovedFields []string
	Reason         string
	Comment        string
	ReviewedAt     string
}

// Decided tells whether the decision was made.
func (o SetOutcome) Decided() bool { return o.Err == nil && !o.Skipped && !o.Undecided }

// setRow is a revision as a set of decisions reads it.
type setRow struct {
	ID              string         `db:"id"`
	Client          string         `db:"apiClient"`
	Product         string         `db:"product"`
	Status          string         `db:"status"`
	Created         types.DateTime `db:"created"`
	Proposed        types.JSONRaw  `db:"proposed"`
	Superseded      types.JSONRaw  `db:"supersededFields"`
	SupersededAttrs types.JSONRaw  `db:"supersededAttributes"`
	Model           types.JSONRaw  `db:"model"`
	Band            string         `db:"confidenceBand"`
	Confidence      int            `db:"confidence"`
}

// setProduct is a product as decisions and rollbacks read it (readProducts)
// and change its values.
type setProduct struct {
	ID          string        `db:"id"`
	Name        string        `db:"name"`
	Slug        string        `db:"slug"`
	Description string        `db:"description"`
	Attributes  types.JSONRaw `db:"attributes"`
	Files       types.JSONRaw `db:"files"`
	Active      bool          `db:"active"`
	Template    string        `db:"attributeTemplate"`
	values      enrichment.ProductValues
}

// DecideSet makes ds, in order, on org's revisions, by who, at now, in one
// transaction, and then announces the decided revisions to realtime
// subscribers; the webhook dispatcher hears of the outbox once it commits
// (store/committed.go). One decision refused leaves the others as they
// are. A revision refused as overdue is expired, in a transaction of its
// own.
func (s *Review) DecideSet(org enrichment.Org, ds []SetDecision, who SetDecider, now time.Time) ([]SetOutcome, error) {
	return s.DecideChosenSet(org, who, now, func(*Store) ([]SetDecision, error) { return ds, nil })
}

// DecideChosenSet is DecideSet for the decisions choose returns, reading
// in the set's transaction (a trust policy checks there again which of
// its candidates still qualify).
func (s *Review) DecideChosenSet(org enrichment.Org, who SetDecider, now time.Time, choose func(tx *Store) ([]SetDecision, error)) ([]SetOutcome, error) {
	var outcomes []SetOutcome
	var decided []int64
	var overdue []string
	err := s.Transaction(func(tx *Store) error {
		ds, err := choose(tx)
		if err != nil || len(ds) == 0 {
			return err
		}
		outcomes, decided, overdue, err = tx.Review().decideSet(org, ds, who, now)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.announceRevisions(nil, decided)
	if len(overdue) > 0 {
		if _, err := s.Proposals().ExpireRevisions(org, overdue, now); err != nil {
			return outcomes, err
		}
	}
	return outcomes, nil
}

// DecideInTransaction makes decision d of who on one of org's revisions in
// the caller's transaction, as DecideSet makes each of its decisions: the
// review hook's way in, whose record save then announces the revision to
// realtime. A revision refused as overdue (enrichment.RuleRevisionExpired)
// is the caller's to expire, once its transaction is rolled back.
func (s *Review) DecideInTransaction(org enrichment.Org, d SetDecision, who SetDecider, now time.Time) (SetOutcome, error) {
	outcomes, _, _, err := s.decideSet(org, []SetDecision{d}, who, now)
	if err != nil {
		return SetOutcome{}, err
	}
	return outcomes[0], nil
}

// decideSet is DecideSet's work in the caller's transaction: it returns
// the outcomes, the ids decided, and those refused as overdue.
func (s *Review) decideSet(org enrichment.Org, ds []SetDecision, who SetDecider, now time.Time) ([]SetOutcome, []int64, []string, error) {
	ids := make([]string, len(ds))
	for i, d := range ds {
		ids[i] = d.Revision
	}
	revs, products, err := s.readSet(org, ids)
	if err != nil {
		return nil, nil, nil, err
	}
	policy, err := s.reviewPolicy(org)
	if err != nil {
		return nil, nil, nil, err
	}
	claims := map[string]enrichment.Claim{}
	if who.Policy == "" && !who.Service { // a person's decisions: claims stop them (a policy is not a person)
		if claims, err = s.LiveClaims([]enrichment.Org{org}, ids, now); err != nil {
			return nil, nil, nil, err
		}
	}
	w, err := s.newSetWriter(org, slices.Collect(maps.Keys(products)), who, now)
	if err != nil {
		return nil, nil, nil, err
	}
	defer w.close()
	outcomes := make([]SetOutcome, len(ds))
	var overdue []string
	stopped := false
	for i, d := range ds {
		o := &outcomes[i]
		o.Revision = d.Revision
		if stopped {
			o.Skipped = true
			continue
		}
		o.Err = s.decideOne(w, revs[d.Revision], products, claims, d, who, policy, now, o)
		if rule, ok := enrichment.AsError(o.Err); ok && rule.Rule == enrichment.RuleRevisionExpired {
			overdue = append(overdue, d.Revision)
		}
		if o.Err != nil {
			if _, ok := enrichment.AsError(o.Err); !ok {
				return nil, nil, nil, o.Err // not a refusal: the whole set fails
			}
			stopped = who.StopOnFailure
		}
	}
	if err := w.finish(); err != nil {
		return nil, nil, nil, err
	}
	return outcomes, w.decided, overdue, nil
}

// readSet reads org's revisions ids and their products, each by id.
func (s *Review) readSet(org enrichment.Org, ids []string) (map[string]*setRow, map[string]*setProduct, error) {
	var rows []setRow
	err := s.db().Select("id", "apiClient", "product", "status", "created", "proposed", "supersededFields", "supersededAttributes",
		"model", "confidenceBand", "confidence").From(schema.Revisions).
		Where(sqlparts.ByIDsOf(org)).AndWhere(sqlparts.In("id", ids)).All(&rows)
	if err != nil {
		return nil, nil, fmt.Errorf("read the revisions of a set of decisions: %w", err)
	}
	revs := make(map[string]*setRow, len(rows))
	var productIDs []string
	for i := range rows {
		revs[rows[i].ID] = &rows[i]
		if rows[i].Product != "" {
			productIDs = append(productIDs, rows[i].Product)
		}
	}
	products, err := s.readProducts(org, productIDs)
	if err != nil {
		return nil, nil, err
	}
	return revs, products, nil
}

// readProducts reads org's products ids (repeats and "" allowed) by id;
// those that do not exist are left out.
func (s *Review) readProducts(org enrichment.Org, ids []string) (map[string]*setProduct, error) {
	ids = slices.DeleteFunc(unique(slices.Clone(ids)), func(id string) bool { return id == "" })
	products := make(map[string]*setProduct, len(ids))
	if len(ids) == 0 {
		return products, nil
	}
	var rows []setProduct
	err := s.db().Select("id", "name", "slug", "description", "attributes", "files", "active", "attributeTemplate").
		From(schema.Products).Where(sqlparts.ByIDsOf(org)).AndWhere(sqlparts.In("id", ids)).All(&rows)
	if err != nil {
		return nil, fmt.Errorf("read products of organization %s: %w", org, err)
	}
	for i := range rows {
		p := &rows[i]
		p.values = enrichment.ProductValues{Name: p.Name, Slug: p.Slug, Description: p.Description,
			Attributes: decodeAttributes(p.Attributes), Files: decodeStrings(p.Files)}
		products[p.ID] = p
	}
	return products, nil
}

// decideOne checks decision d on rev and, unless it is refused, applies it
// to its product in memory and hands its writes to w, filling o.
func (s *Review) decideOne(w *setWriter, rev *setRow, products map[string]*setProduct, claims map[string]enrichment.Claim,
	d SetDecision, who SetDecider, policy enrichment.ReviewPolicy, now time.Time, o *SetOutcome) error {
	if rev == nil {
		return enrichment.ErrNotFound
	}
	if rev.Status == enrichment.StatusPending && claims[rev.ID].HeldAgainst(who.Reviewer, now) {
		return enrichment.ClaimHeld(claims[rev.ID])
	}
	under := enrichment.UnderReview{Status: rev.Status, Created: rev.Created.Time(),
		Superseded: decodeStrings(rev.Superseded), SupersededAttributes: decodeStrings(rev.SupersededAttrs)}
	if len(rev.Proposed) > 0 && string(rev.Proposed) != "null" {
		if err := json.Unmarshal(rev.Proposed, &under.Proposed); err != nil {
			return fmt.Errorf("decode proposed of revision %s: %w", rev.ID, err)
		}
	}
	p := products[rev.Product]
	if len(d.Corrections) > 0 && p != nil { // corrections are checked against the product's template
		options, err := s.Proposals().templateOptions(w.org)
		if err != nil {
			return err
		}
		under.Options = options[p.Template]
	}
	applied, decided, err := enrichment.Decide(under, d.Decision, policy, now)
	if err != nil || !decided {
		o.Undecided = err == nil
		return err
	}
	filled := 0
	if len(applied.Fields) > 0 {
		if p == nil || !p.Active {
			return productGone()
		}
		if filled, err = w.apply(rev.ID, p, applied); err != nil {
			return err
		}
	}
	mask := enrichment.NewFieldMask(under.Proposed.Names(), applied.Fields, applied.Corrections.Keys()).WithSlotsFilled(filled)
	if err := w.revision(rev, p, d, applied, mask); err != nil {
		return err
	}
	*o = SetOutcome{Revision: rev.ID, Status: d.Status, ApprovedFields: orEmpty(applied.Fields), Reason: d.Reason,
		Comment: d.Comment, ReviewedAt: w.stamp}
	return nil
}
