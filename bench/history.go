package main

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"time"

	"github.com/catalog-enrichment/enrichment/schema"
)

// historyResult is the seeded history the metrics-history scenarios read.
type historyResult struct {
	Revisions int     `json:"revisions"`
	Days      int     `json:"days"`
	Seconds   float64 `json:"seedSeconds"` // writing them and recounting, before the server starts
}

// historyDays is how far back the seeded history of the metrics client
// reaches: a vendor that has sent proposals for a year.
const historyDays = 365

// historyEnd is when the seeded history ends; the windowed metrics pick
// their instants inside [historyEnd - historyDays, historyEnd].
var historyEnd = time.Now().UTC()

// seedHistory gives API client n revisions spread evenly over the last
// year, written by SQL while no server runs (submitting a million proposals
// through the API would take the run's whole time), then has the service
// count them with `metrics recount`, the command an operator runs after
// writes made around the service. Of every 20 revisions: 6 of the last 60
// days are still pending (older ones were decided), 3 accepted, 6
// rejected with a reason, 3 superseded, 2 expired after the default 90
// days (accepted when younger); confidence runs through 0..99, so every
// band is there. Nine in ten name a model: one of three names, each in a
// new version every 30 days (39 model versions over the year).
func seedHistory(ctx context.Context, bin, data, org, client string, n int) (seconds float64, err error) {
	start := time.Now()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(data, "data.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()

	var first int64
	err = tx.QueryRow(`INSERT INTO `+schema.SequenceTable+` (name, last) VALUES ('revisions', ?)
		ON CONFLICT (name) DO UPDATE SET last = last + excluded.last RETURNING last`, n).Scan(&first)
	if err != nil {
		return 0, fmt.Errorf("reserve %d revision ids: %w", n, err)
	}
	first -= int64(n) - 1

	if _, err := tx.Exec(`CREATE TEMP TABLE history_products AS
		SELECT ROW_NUMBER() OVER (ORDER BY CAST(id AS INTEGER)) - 1 AS n, id, sku
		FROM products WHERE organization = ? AND active = 1`, org); err != nil {
		return 0, fmt.Errorf("number the products: %w", err)
	}
	const day = 86_400_000 // milliseconds
	endMs := historyEnd.UnixMilli()
	// note: i = 0 is the newest revision; ages grow evenly with i
	_, err = tx.Exec(`WITH RECURSIVE seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i < ?1 - 1),
		shaped AS (
			SELECT i, ?2 - i * (?3 * ?4 / ?1) AS createdMs, i % 20 AS k, i % 100 AS confidence FROM seq),
		stated AS (
			SELECT *, CASE
				WHEN k < 6 AND ?2 - createdMs < 60 * ?4 THEN 'pending'
				WHEN k < 9 THEN 'accepted'
				WHEN k < 15 THEN 'rejected'
				WHEN k < 18 THEN 'superseded'
				WHEN ?2 - createdMs >= 90 * ?4 THEN 'expired'
				ELSE 'accepted' END AS status,
				MIN(?2, createdMs + (i % 72) * 3600000) AS laterMs
			FROM shaped)
		INSERT INTO revisions (id, organization, apiClient, product, sku, confidence, confidenceBand,
			proposed, base, status, approvedFields, reviewedAt, reviewer, externalSubmissionId,
			supersededFields, supersededBy, closedAt, reason, comment, model, decisionMask, created, updated)
		SELECT CAST(?5 + i AS TEXT), ?6, ?7, p.id, p.sku, confidence,
			CASE WHEN confidence >= 80 THEN '80-100' WHEN confidence >= 50 THEN '50-79' ELSE '0-49' END,
			'{"name":"Proposed name"}', '{"name":"Old name"}', status,
			CASE WHEN status = 'accepted' THEN '["name"]' ELSE '[]' END,
			CASE WHEN status IN ('accepted', 'rejected') THEN `+sqlTime("laterMs")+` ELSE '' END,
			'', 'history-' || i, '[]', '',
			CASE status WHEN 'superseded' THEN `+sqlTime("laterMs")+`
				WHEN 'expired' THEN `+sqlTime("createdMs + 90 * ?4")+` ELSE '' END,
			CASE WHEN status = 'rejected' THEN json_extract(?8, '$[' || (i % 6) || ']') ELSE '' END,
			'', CASE WHEN i % 10 = 9 THEN NULL ELSE json_object('name', 'writer-' || (i % 3),
				'version', 'v' || CAST((?2 - createdMs) / (30 * ?4) AS INTEGER)) END,
			CASE status WHEN 'accepted' THEN 33 WHEN 'rejected' THEN 1 ELSE 0 END, `+sqlTime("createdMs")+`, `+sqlTime("MAX(createdMs, laterMs)")+`
		FROM stated JOIN history_products p ON p.n = stated.i % (SELECT COUNT(*) FROM history_products)`,
		n, endMs, float64(historyDays), day, first, org, client,
		`["inaccurate","low_quality","off_brand","incomplete","duplicate","other"]`)
	if err != nil {
		return 0, fmt.Errorf("write %d revisions: %w", n, err)
	}
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	if err := db.Close(); err != nil {
		return 0, err
	}
	if _, err := runCLI(ctx, bin, data, 30*time.Minute, "metrics", "recount", "--org", org); err != nil {
		return 0, err
	}
	return time.Since(start).Seconds(), nil
}

// sqlTime renders an SQL expression of Unix milliseconds as a stored
// timestamp ("2006-01-02 15:04:05.000Z").
func sqlTime(ms string) string {
	return `strftime('%Y-%m-%d %H:%M:%fZ', (` + ms + `) / 1000.0, 'unixepoch')`
}
