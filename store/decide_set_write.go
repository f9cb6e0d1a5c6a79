package store

import (
	"encoding/json/v2"
	"fmt"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
)

// setWriter gathers and writes the effects of a set of decisions, in the
// caller's transaction: revisions and accepted values as each decision is
// made, the products, counters, webhook outbox and claims once at the end.
type setWriter struct {
	*productEdits // its store and organization are the set's
	who           SetDecider
	now           time.Time
	stamp         string
	mark          *dbx.Query

	deltas  metricDeltas
	trust   trustDeltas
	events  map[string][]int64 // revisions by webhook event
	decided []int64
}

// newSetWriter prepares the writes of a set of decisions on org's
// products; close it after use.
func (s *Review) newSetWriter(org enrichment.Org, products []string, who SetDecider, now time.Time) (*setWriter, error) {
	edits, err := s.newProductEdits(org, products)
	if err != nil {
		return nil, err
	}
	w := &setWriter{productEdits: edits, who: who, now: now, stamp: FormatTime(now),
		deltas: metricDeltas{}, trust: trustDeltas{}, events: map[string][]int64{}}
	// note: status 'pending' in the WHERE clause: a revision decided meanwhile is not decided again
	w.mark = s.db().NewQuery(`UPDATE {{` + schema.Revisions + `}} SET [[status]] = {:status}, [[approvedFields]] = {:fields},
		[[approvedAttributes]] = {:attrs}, [[decisionMask]] = {:mask}, [[reason]] = {:reason}, [[comment]] = {:comment},
		[[corrections]] = {:corrections}, [[fieldReasons]] = {:fieldReasons},
		[[reviewedAt]] = {:now}, [[closedAt]] = {:now}, [[reviewer]] = {:reviewer}, [[decidedBy]] = {:decidedBy},
		[[policy]] = {:policy}, [[audit]] = {:audit}, [[updated]] = {:now}
		WHERE [[id]] = {:id} AND [[organization]] = {:org} AND [[status]] = 'pending'`).Prepare()
	return w, nil
}

func (w *setWriter) close() {
	w.productEdits.close()
	w.mark.Close()
}

// revision writes decision d on rev (of product p, nil when gone) and
// counts it.
func (w *setWriter) revision(rev *setRow, p *setProduct, d SetDecision, applied enrichment.Applied, mask enrichment.FieldMask) error {
	decidedBy, reviewer, audit := enrichment.DecidedByReviewer, w.who.Name, ""
	if w.who.Policy != "" {
		decidedBy, reviewer, mask = enrichment.DecidedByPolicy, "policy:"+w.who.Policy, mask|enrichment.ByPolicy
		if d.Audit {
			audit = enrichment.AuditPending
		}
	}
	fields, err := json.Marshal(orEmpty(applied.Fields))
	if err != nil {
		return err
	}
	attrs, err := jsonOrNull(len(applied.Attributes), applied.Attributes)
	if err != nil {
		return err
	}
	corrections, err := jsonOrNull(len(applied.Corrections), applied.Corrections)
	if err != nil {
		return fmt.Errorf("encode the corrections of revision %s: %w", rev.ID, err)
	}
	fieldReasons, err := jsonOrNull(len(d.FieldReasons), d.FieldReasons)
	if err != nil {
		return fmt.Errorf("encode the field reasons of revision %s: %w", rev.ID, err)
	}
	res, err := w.mark.Bind(dbx.Params{"id": rev.ID, "org": string(w.org), "status": d.Status, "fields": string(fields),
		"attrs": attrs, "mask": int(mask), "reason": d.Reason, "comment": d.Comment, "corrections": corrections,
		"fieldReasons": fieldReasons, "now": w.stamp, "reviewer": reviewer, "decidedBy": decidedBy,
		"policy": w.who.Policy, "audit": audit}).Execute()
	if err != nil {
		return fmt.Errorf("decide revision %s: %w", rev.ID, err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return fmt.Errorf("decide revision %s: it is no longer pending", rev.ID)
	}
	model := storedModel(rev.Model)
	w.deltas.move(rev.Client, model, rev.Created.Time(), w.now, d.Status, rev.Band, d.Reason)
	w.deltas.addFields(rev.Client, model, w.now, mask, 1)
	w.countForTrust(rev, p, mask)
	id := sqlparts.StoredID(rev.ID)
	event := enrichment.RevisionEvent(d.Status)
	w.events[event] = append(w.events[event], id)
	w.decided = append(w.decided, id)
	return nil
}

// countForTrust counts a person's decision on rev (of product p, nil when
// gone) that did mask, for the trust policies' measurement: the fields the
// person decided (enrichment.CountedFields), right when applied as
// proposed; a policy's own decisions are not counted (their audits are). writeTrustDeltas writes the counts at finish.
func (w *setWriter) countForTrust(rev *setRow, p *setProduct, mask enrichment.FieldMask) {
	if w.who.Policy != "" {
		return
	}
	template := ""
	if p != nil {
		template = p.Template
	}
	confidence := enrichment.StatedConfidence(rev.Confidence, rev.Band)
	counted := enrichment.CountedFields(mask, decodeStrings(rev.Superseded))
	w.trust.add(rev.Client, template, confidence, counted, mask.Clean(), w.now)
}

// jsonOrNull is v as JSON text, or NULL when it holds n = 0 entries.
func jsonOrNull(n int, v any) (any, error) {
	if n == 0 {
		return nil, nil
	}
	b, err := json.Marshal(v, json.Deterministic(true))
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

// finish writes what the decisions changed beyond their revisions.
func (w *setWriter) finish() error {
	if err := w.productEdits.write(); err != nil {
		return err
	}
	if err := w.s.Metrics().writeMetricDeltas(w.org, w.deltas); err != nil {
		return err
	}
	if err := w.s.Trust().writeTrustDeltas(w.org, w.trust); err != nil {
		return err
	}
	for _, status := range []string{enrichment.StatusAccepted, enrichment.StatusRejected} {
		event := enrichment.RevisionEvent(status)
		if err := w.s.Outbox().queueRevisionEvents(w.org, event, w.events[event]); err != nil {
			return err
		}
	}
	if len(w.decided) == 0 {
		return nil
	}
	if err := w.countDecisions(); err != nil {
		return err
	}
	// a decision ends any claim on its revision
	_, err := w.s.db().Delete(schema.ReviewClaims, sqlparts.In("revision", sqlparts.FormatIDs(w.decided))).Execute()
	if err != nil {
		return fmt.Errorf("end the claims on decided revisions: %w", err)
	}
	return nil
}

// countDecisions adds the set's decisions to the operators' count of
// decisions by who made them (opsmetrics), one row per decider.
func (w *setWriter) countDecisions() error {
	decidedBy := enrichment.DecidedByReviewer
	if w.who.Policy != "" {
		decidedBy = enrichment.DecidedByPolicy
	}
	_, err := w.s.db().NewQuery(`INSERT INTO ` + schema.DecisionCountsTable + ` (decidedBy, n) VALUES ({:by}, {:n})
		ON CONFLICT (decidedBy) DO UPDATE SET n = n + excluded.n`).Bind(dbx.Params{"by": decidedBy, "n": len(w.decided)}).Execute()
	if err != nil {
		return fmt.Errorf("count %d decisions by %s: %w", len(w.decided), decidedBy, err)
	}
	return nil
}
