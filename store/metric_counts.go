package store

import (
	"encoding/json/v2"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
)

// Metric counters: for each API client, one row per bucket of time (all
// time, each month, day and hour) holding every figure the metrics add up:
// revisions by state, decided ones by confidence band and by reason. A
// revision counts in the buckets of the moment that counts for its state
// (created while pending, reviewedAt once decided, closedAt once superseded
// or expired). A reverted revision counts as decided at its reviewedAt, as
// rejected and as reverted, never as accepted. They are kept in the
// transactions that change a revision's
// state, so GET /acceptance-rate reads a bucket row per whole month, day
// and hour of its window and only the partial hours at its edges from the
// revisions' indexes (store/metrics.go).

// Counter spans, coarsest first; the "all" span has an empty start.
const (
	spanAll   = "all"
	spanMonth = "month"
	spanDay   = "day"
	spanHour  = "hour"
)

// bucketStart is where the bucket of span that holds t starts.
func bucketStart(span string, t time.Time) time.Time {
	t = t.UTC()
	switch span {
	case spanMonth:
		return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	case spanDay:
		return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	default:
		return t.Truncate(time.Hour)
	}
}

// nextBucket is the start of the bucket of span after the one starting at t.
func nextBucket(span string, t time.Time) time.Time {
	switch span {
	case spanMonth:
		return t.AddDate(0, 1, 0)
	case spanDay:
		return t.AddDate(0, 0, 1)
	default:
		return t.Add(time.Hour)
	}
}

// counterColumn is one counter of a bucket row and, in SQL over the
// revisions, the revisions it counts (for a recount).
type counterColumn struct{ name, counts string }

// counterColumns are the columns of a bucket row, in table order; the
// migration that made the table spells the same list out.
var counterColumns = func() []counterColumn {
	decided := "[[status]] IN ('accepted', 'rejected', 'reverted')"
	var cols []counterColumn
	for _, s := range enrichment.Statuses {
		switch s {
		case enrichment.StatusRejected:
			cols = append(cols, counterColumn{s, "[[status]] IN ('rejected', 'reverted')"})
		case enrichment.StatusReverted: // last: a later migration added it
		default:
			cols = append(cols, counterColumn{s, "[[status]] = '" + s + "'"})
		}
	}
	for _, b := range enrichment.ConfidenceBands {
		cols = append(cols,
			counterColumn{reviewedColumn(b), decided + " AND [[confidenceBand]] = '" + b + "'"},
			counterColumn{acceptedColumn(b), "[[status]] = 'accepted' AND [[confidenceBand]] = '" + b + "'"})
	}
	for _, r := range enrichment.Reasons {
		cols = append(cols, counterColumn{reasonColumn(r), decided + " AND [[reason]] = '" + r + "'"})
	}
	// what reviewers did per field, from what the revision recorded (never
	// from its decisionMask, so a recount checks the mask too)
	accepted := "[[status]] = 'accepted'"
	cols = append(cols, counterColumn{"corrected", accepted + " AND " + correctedSQL("key IS NOT NULL")})
	for _, f := range enrichment.EnrichableFields {
		corrected := "key = '" + f + "'"
		if f == "attributes" {
			corrected = "key LIKE 'attributes.%'"
		}
		proposed := "COALESCE(CASE WHEN json_valid([[proposed]]) THEN json_type([[proposed]], '$." + f + "') END, 'null') != 'null'"
		applied := accepted + " AND " + proposed + " AND " + jsonListHas("approvedFields", f) + " AND NOT " + jsonListHas("supersededFields", f)
		cols = append(cols,
			counterColumn{"proposed_" + f, decided + " AND " + proposed},
			counterColumn{"applied_" + f, applied},
			counterColumn{"corrected_" + f, accepted + " AND " + correctedSQL(corrected)})
		i := strconv.Itoa(len(maskParts) / 3)
		maskParts = append(maskParts, "(("+proposed+") << "+i+")", "(("+applied+") << (5 + "+i+"))",
			"(("+accepted+" AND "+correctedSQL(corrected)+") << (10 + "+i+"))")
	}
	// decisions a trust policy made (enrichment.ByPolicy)
	cols = append(cols, counterColumn{"autoAccepted", accepted + " AND [[decidedBy]] = 'policy'"})
	maskParts = append(maskParts, "(("+accepted+" AND COALESCE([[decidedBy]], '') = 'policy') << 15)")
	// the gaps an accepted revision filled, which only its decision knew:
	// a recount keeps them from the stored mask
	maskParts = append(maskParts, "(COALESCE([[decisionMask]], 0) & (255 << 16))")
	decisionMaskSQL = strings.Join(maskParts, " | ")
	return append(cols, counterColumn{enrichment.StatusReverted, "[[status]] = 'reverted'"},
		counterColumn{"slotsFilled", "CASE WHEN " + accepted + " THEN (COALESCE([[decisionMask]], 0) >> 16) & 255 ELSE 0 END"})
}()

// decisionMaskSQL computes a decided revision's decisionMask
// (enrichment.FieldMask) from what it recorded, as the metrics' recount
// counts it; maskParts are its terms.
var decisionMaskSQL string
var maskParts []string

// jsonListHas is SQL telling whether a revision's JSON list column holds
// value.
func jsonListHas(column, value string) string {
	return "EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid([[" + column + "]]) THEN [[" + column + "]] ELSE '[]' END) WHERE value = '" + value + "')"
}

// correctedSQL is SQL telling whether a revision's corrections have a key
// that matches.
func correctedSQL(match string) string {
	return "EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid([[corrections]]) THEN [[corrections]] ELSE '{}' END) WHERE " + match + ")"
}

func reviewedColumn(band string) string { return "reviewed_" + strings.ReplaceAll(band, "-", "_") }
func acceptedColumn(band string) string { return "accepted_" + strings.ReplaceAll(band, "-", "_") }
func reasonColumn(reason string) string { return "reason_" + reason }

// counterIndex finds a column's place in counterColumns.
var counterIndex = func() map[string]int {
	out := make(map[string]int, len(counterColumns))
	for i, c := range counterColumns {
		out[c.name] = i
	}
	return out
}()

// counts is one bucket's counters, in counterColumns order.
type counts []int

func newCounts() counts { return make(counts, len(counterColumns)) }

// bump adds n to the named counter, if there is one: a band or reason
// outside the lists is not counted, as in a recount.
func (c counts) bump(name string, n int) {
	if i, ok := counterIndex[name]; ok {
		c[i] += n
	}
}

// count adds n revisions of a status to c; only decided ones count by band
// and reason, and a reverted one counts as rejected too.
func (c counts) count(status, band, reason string, n int) {
	c.bump(status, n)
	switch status {
	case enrichment.StatusReverted:
		c.bump(enrichment.StatusRejected, n)
	case enrichment.StatusAccepted, enrichment.StatusRejected:
	default:
		return
	}
	if band != "" {
		c.bump(reviewedColumn(band), n)
		if status == enrichment.StatusAccepted {
			c.bump(acceptedColumn(band), n)
		}
	}
	if reason != "" {
		c.bump(reasonColumn(reason), n)
	}
}

// countFields adds n decided revisions whose decision mask is mask.
func (c counts) countFields(mask enrichment.FieldMask, n int) {
	if mask.AnyCorrected() {
		c.bump("corrected", n)
	}
	if mask&enrichment.ByPolicy != 0 { // a policy only accepts
		c.bump("autoAccepted", n)
	}
	c.bump("slotsFilled", n*mask.SlotsFilled()) // note: only an accepted decision's mask has any
	for i, f := range enrichment.EnrichableFields {
		if mask.Proposed(i) {
			c.bump("proposed_"+f, n)
		}
		if mask.Applied(i) {
			c.bump("applied_"+f, n)
		}
		if mask.Corrected(i) {
			c.bump("corrected_"+f, n)
		}
	}
}

// addTo adds the counters to m; the derived figures are left to Finish.
func (c counts) addTo(m *enrichment.AcceptanceMetrics) {
	get := func(name string) int { return c[counterIndex[name]] }
	m.Pending += get(enrichment.StatusPending)
	m.Accepted += get(enrichment.StatusAccepted)
	m.Rejected += get(enrichment.StatusRejected)
	m.Superseded += get(enrichment.StatusSuperseded)
	m.Expired += get(enrichment.StatusExpired)
	for i := range m.ByConfidenceBand {
		b := &m.ByConfidenceBand[i]
		b.Reviewed += get(reviewedColumn(b.Band))
		b.Accepted += get(acceptedColumn(b.Band))
	}
	for i := range m.ByReason {
		m.ByReason[i].Count += get(reasonColumn(m.ByReason[i].Reason))
	}
	m.Corrected += get("corrected")
	m.AutoAccepted += get("autoAccepted")
	m.Reverted += get(enrichment.StatusReverted)
	m.SlotsFilled += get("slotsFilled")
	for i := range m.ByField {
		f := &m.ByField[i]
		f.Proposed += get("proposed_" + f.Field)
		f.Applied += get("applied_" + f.Field)
		f.Corrected += get("corrected_" + f.Field)
	}
}

// targets are the counters as the destinations of a row's scan.
func (c counts) targets() []any {
	out := make([]any, len(c))
	for i := range c {
		out[i] = &c[i]
	}
	return out
}

// scanCounts reads a row of the head columns followed by the counters.
func scanCounts(rows *dbx.Rows, head ...any) (counts, error) {
	c := newCounts()
	return c, rows.Scan(append(head, c.targets()...)...)
}

// bucket is one counter row of a client: of all its revisions when model
// is zero, else of those the model made (the model counters).
type bucket struct {
	client, span, start string
	model               modelKey
}

// modelKey is a model's name and version as the counters key them; zero
// for revisions submitted without a model.
type modelKey struct{ name, version string }

// storedModel is the counters' key of a revision's stored model field.
func storedModel(raw []byte) modelKey {
	if len(raw) == 0 || raw[0] != '{' {
		return modelKey{}
	}
	var m enrichment.Model
	if json.Unmarshal(raw, &m) != nil {
		return modelKey{}
	}
	return keyOf(&m)
}

// keyOf is the counters' key of a revision's model (nil: none).
func keyOf(m *enrichment.Model) modelKey {
	if m == nil {
		return modelKey{}
	}
	return modelKey{m.Name, m.Version}
}

// metricDeltas are changes to counters, added up before they are written.
type metricDeltas map[bucket]counts

// add counts n revisions of client, made by model, entering (n > 0) or
// leaving (n < 0) status at the moment at, in every span: in the client's
// counters and, for a model, in the model's.
func (d metricDeltas) add(client string, model modelKey, at time.Time, status, band, reason string, n int) {
	d.each(client, model, at, func(c counts) { c.count(status, band, reason, n) })
}

// each calls fn with the counters of every bucket a change of client's
// revisions, made by model, at the moment at counts in: each span's, the
// client's and, for a model, the model's.
func (d metricDeltas) each(client string, model modelKey, at time.Time, fn func(counts)) {
	for _, span := range []string{spanAll, spanMonth, spanDay, spanHour} {
		b := bucket{client: client, span: span}
		if span != spanAll {
			b.start = FormatTime(bucketStart(span, at))
		}
		for _, key := range []modelKey{{}, model} {
			b.model = key
			if d[b] == nil {
				d[b] = newCounts()
			}
			fn(d[b])
			if model == (modelKey{}) {
				break
			}
		}
	}
}

// move counts one revision of model leaving pending (submitted at created)
// for a final status at the moment at.
func (d metricDeltas) move(client string, model modelKey, created, at time.Time, status, band, reason string) {
	d.add(client, model, created, enrichment.StatusPending, "", "", -1)
	d.add(client, model, at, status, band, reason, 1)
}

// counterNames lists the counter columns for SQL.
func counterNames(prefix string) []string {
	out := make([]string, len(counterColumns))
	for i, c := range counterColumns {
		out[i] = prefix + c.name
	}
	return out
}

// writeMetricDeltas adds the deltas to org's counters, in the caller's
// transaction.
func (s *Metrics) writeMetricDeltas(org enrichment.Org, d metricDeltas) error {
	if len(d) == 0 {
		return nil
	}
	names := counterNames("")
	set := make([]string, len(names))
	for i, n := range names {
		set[i] = n + " = " + n + " + excluded." + n
	}
	q := s.db().NewQuery(`INSERT INTO ` + schema.MetricCountsTable + ` (organization, client, span, start, ` +
		strings.Join(names, ", ") + `) VALUES ({:org}, {:client}, {:span}, {:start}, ` +
		strings.Join(counterNames("{:"), "}, ") + `})
		ON CONFLICT (organization, client, span, start) DO UPDATE SET ` + strings.Join(set, ", ")).Prepare()
	defer q.Close()
	var byModel *dbx.Query // prepared when a delta counts a model
	for b, c := range d {
		params := dbx.Params{"org": string(org), "client": b.client, "span": b.span, "start": b.start}
		for i, col := range counterColumns {
			params[col.name] = c[i]
		}
		write := q
		if b.model != (modelKey{}) {
			if byModel == nil {
				byModel = s.db().NewQuery(`INSERT INTO ` + schema.ModelCountsTable + ` (organization, client, span, start, model, version, ` +
					strings.Join(names, ", ") + `) VALUES ({:org}, {:client}, {:span}, {:start}, {:model}, {:version}, ` +
					strings.Join(counterNames("{:"), "}, ") + `})
					ON CONFLICT (organization, client, span, start, model, version) DO UPDATE SET ` + strings.Join(set, ", ")).Prepare()
				defer byModel.Close()
			}
			write, params["model"], params["version"] = byModel, b.model.name, b.model.version
		}
		if _, err := write.Bind(params).Execute(); err != nil {
			return fmt.Errorf("count revisions of client %s: %w", b.client, err)
		}
	}
	return nil
}

// addFields counts n decisions (n < 0: uncounts them) whose fields did
// mask at the moment at, in every span: in the client's counters and, for
// a model, in the model's.
func (d metricDeltas) addFields(client string, model modelKey, at time.Time, mask enrichment.FieldMask, n int) {
	d.each(client, model, at, func(c counts) { c.countFields(mask, n) })
}

// metricSpans are the counter spans with the SQL of their bucket's start,
// from the moment that counts for a revision's state.
var metricSpans = func() map[string]string {
	const at = `CASE [[status]] WHEN 'pending' THEN [[created]] WHEN 'accepted' THEN [[reviewedAt]] WHEN 'rejected' THEN [[reviewedAt]]
		WHEN 'reverted' THEN [[reviewedAt]] ELSE [[closedAt]] END`
	return map[string]string{
		spanAll:   "''",
		spanMonth: "strftime('%Y-%m-01 00:00:00.000Z', " + at + ")",
		spanDay:   "strftime('%Y-%m-%d 00:00:00.000Z', " + at + ")",
		spanHour:  "strftime('%Y-%m-%d %H:00:00.000Z', " + at + ")",
	}
}()

// RecountMetrics rebuilds org's counters from its revisions: after writes
// that went around the store (SQL by hand, a restore of part of a table).
func (s *Metrics) RecountMetrics(org enrichment.Org) error {
	sums := make([]string, len(counterColumns))
	for i, c := range counterColumns {
		sums[i] = "SUM(" + c.counts + ")"
	}
	return s.Transaction(func(tx *Store) error {
		// the decisions' masks too, which count a window's edges per field
		_, err := tx.db().NewQuery(`UPDATE {{revisions}} SET [[decisionMask]] = ` + decisionMaskSQL + `
			WHERE [[organization]] = {:org} AND [[status]] IN ('accepted', 'rejected', 'reverted')`).Bind(dbx.Params{"org": string(org)}).Execute()
		if err != nil {
			return fmt.Errorf("recompute the decision masks of organization %s: %w", org, err)
		}
		if _, err := tx.db().Delete(schema.MetricCountsTable, dbx.HashExp{"organization": string(org)}).Execute(); err != nil {
			return fmt.Errorf("forget the counters of organization %s: %w", org, err)
		}
		if _, err := tx.db().Delete(schema.ModelCountsTable, dbx.HashExp{"organization": string(org)}).Execute(); err != nil {
			return fmt.Errorf("forget the model counters of organization %s: %w", org, err)
		}
		for span, start := range metricSpans {
			_, err := tx.db().NewQuery(`INSERT INTO ` + schema.MetricCountsTable + ` (organization, client, span, start, ` +
				strings.Join(counterNames(""), ", ") + `)
				SELECT [[organization]], [[apiClient]], '` + span + `', ` + start + `, ` + strings.Join(sums, ", ") + `
				FROM {{revisions}} WHERE [[organization]] = {:org} GROUP BY 1, 2, 3, 4`).
				Bind(dbx.Params{"org": string(org)}).Execute()
			if err != nil {
				return fmt.Errorf("count the revisions of organization %s: %w", org, err)
			}
			_, err = tx.db().NewQuery(`INSERT INTO ` + schema.ModelCountsTable + ` (organization, client, span, start, model, version, ` +
				strings.Join(counterNames(""), ", ") + `)
				SELECT [[organization]], [[apiClient]], '` + span + `', ` + start + `, [[model]] ->> '$.name', [[model]] ->> '$.version', ` +
				strings.Join(sums, ", ") + `
				FROM {{revisions}} WHERE [[organization]] = {:org} AND json_type([[model]]) = 'object' GROUP BY 1, 2, 3, 4, 5, 6`).
				Bind(dbx.Params{"org": string(org)}).Execute()
			if err != nil {
				return fmt.Errorf("count the revisions of organization %s by model: %w", org, err)
			}
		}
		return tx.Trust().recountTrust(org) // the trust policies' counters (store/trust.go)
	})
}

// MetricCounter is one stored bucket row, for checks against a recount:
// its non-zero counters as "name=n", space-separated. Model is "" for the
// client's counters, "name version" for a model's.
type MetricCounter struct {
	Client, Span, Start, Model, Counts string
}

// MetricCounters lists org's bucket rows that count anything, the client's
// and then the models', in key order.
func (s *Metrics) MetricCounters(org enrichment.Org) ([]MetricCounter, error) {
	rows, err := s.db().NewQuery(`SELECT [[client]], [[span]], [[start]], '' AS [[model]], ` + strings.Join(counterNames(""), ", ") +
		` FROM ` + schema.MetricCountsTable + ` WHERE [[organization]] = {:org}
		UNION ALL SELECT [[client]], [[span]], [[start]], [[model]] || ' ' || [[version]], ` + strings.Join(counterNames(""), ", ") +
		` FROM ` + schema.ModelCountsTable + ` WHERE [[organization]] = {:org}
		ORDER BY 4, 1, 2, 3`).Bind(dbx.Params{"org": string(org)}).Rows()
	if err != nil {
		return nil, fmt.Errorf("list the counters of organization %s: %w", org, err)
	}
	defer rows.Close()
	var out []MetricCounter
	for rows.Next() {
		var r MetricCounter
		c, err := scanCounts(rows, &r.Client, &r.Span, &r.Start, &r.Model)
		if err != nil {
			return nil, fmt.Errorf("list the counters of organization %s: %w", org, err)
		}
		var nonZero []string
		for i, n := range c {
			if n != 0 {
				nonZero = append(nonZero, fmt.Sprintf("%s=%d", counterColumns[i].name, n))
			}
		}
		if len(nonZero) > 0 {
			r.Counts = strings.Join(nonZero, " ")
			out = append(out, r)
		}
	}
	return out, rows.Err()
}
