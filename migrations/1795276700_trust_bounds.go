package migrations

import (
	"fmt"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Trust that holds (docs/review.md): a policy is earned on the lower bound
// of its measured precision and withdrawn on its audits' upper bound, in
// all and per model version, and every model version starts on probation.
//
//   - trust_policies gain, set by the service: precisionLowerBound (the
//     bound that earns activation), activatedAt (when the policy last
//     became active: probation and suspension count the audits closed
//     since) and probation (the model versions on probation, with their
//     figures);
//   - revisions gain an index of a policy's decisions by time, for the
//     probation's figures;
//   - the trust counters count fields a person decided: their columns are
//     renamed counted and correct, and they are counted again without the
//     fields a newer proposal superseded, with the audits people closed
//     (confirmed: right; reverted: wrong);
//   - every policy's measurement and state are computed again by the new
//     rules (a suspended one stays suspended until disabled and enabled).
func init() {
	m.Register(addTrustBounds, dropTrustBounds)
}

// supersededMaskSQL is the mask of places in the enrichable fields a
// revision r lists in supersededFields.
const supersededMaskSQL = `(SELECT COALESCE(SUM(CASE s.value WHEN 'name' THEN 1 WHEN 'slug' THEN 2 WHEN 'description' THEN 4
	WHEN 'attributes' THEN 8 WHEN 'files' THEN 16 ELSE 0 END), 0)
	FROM json_each(CASE WHEN json_valid(r.supersededFields) THEN r.supersededFields ELSE '[]' END) s)`

func addTrustBounds(app core.App) error {
	policies, err := app.FindCollectionByNameOrId(schema.TrustPolicies)
	if err != nil {
		return err
	}
	policies.Fields.Add(
		&core.NumberField{Name: "precisionLowerBound", Help: "Set by the service: the lower 95% bound of measuredPrecision; the policy is active while it reaches targetPrecision."},
		&core.DateField{Name: "activatedAt", Help: "Set by the service: when the policy last became active."},
		&core.JSONField{Name: "probation", MaxSize: 1 << 16, Help: "Set by the service: the model versions on probation since the policy became active."},
	)
	if err := app.Save(policies); err != nil {
		return fmt.Errorf("trust policies: %w", err)
	}
	revisions, err := app.FindCollectionByNameOrId(schema.Revisions)
	if err != nil {
		return err
	}
	revisions.AddIndex(schema.IdxRevisionsPolicyDecided, false, "policy, reviewedAt", "policy != ''")
	if err := app.Save(revisions); err != nil {
		return fmt.Errorf("revisions: %w", err)
	}
	counted := `(r.decisionMask & 31) & ~` + supersededMaskSQL
	err = execAll(app, []string{
		`ALTER TABLE ` + schema.TrustCountsTable + ` RENAME COLUMN proposed TO counted`,
		`ALTER TABLE ` + schema.TrustCountsTable + ` RENAME COLUMN clean TO ` + "correct",
		`DELETE FROM ` + schema.TrustCountsTable,
		`INSERT INTO ` + schema.TrustCountsTable + ` (organization, client, template, confidence, day, counted, correct, n)
		SELECT organization, client, template, confidence, day, counted, correct, COUNT(*) FROM (
			SELECT r.organization, r.apiClient AS client, COALESCE(p.attributeTemplate, '') AS template,
				CASE WHEN r.confidenceBand = '' THEN -1 ELSE r.confidence END AS confidence,
				strftime('%Y-%m-%d', r.reviewedAt) AS day, ` + counted + ` AS counted,
				((r.decisionMask >> 5) & 31) & ~((r.decisionMask >> 10) & 31) & ` + counted + ` AS correct
			FROM revisions r LEFT JOIN products p ON p.id = r.product
			WHERE r.decidedBy = 'reviewer' AND r.reviewedAt != ''
			UNION ALL
			SELECT r.organization, r.apiClient, COALESCE(p.attributeTemplate, ''),
				CASE WHEN r.confidenceBand = '' THEN -1 ELSE r.confidence END,
				strftime('%Y-%m-%d', r.auditedAt), ` + counted + `,
				CASE WHEN r.audit = 'confirmed' THEN ` + counted + ` ELSE 0 END
			FROM revisions r LEFT JOIN products p ON p.id = r.product
			WHERE r.decidedBy = 'policy' AND r.audit IN ('confirmed', 'reverted') AND r.auditedAt != ''
		) GROUP BY 1, 2, 3, 4, 5, 6, 7`,
	})
	if err != nil {
		return fmt.Errorf("count the trust counters again: %w", err)
	}
	return remeasurePolicies(app, time.Now())
}

// remeasurePolicies computes every policy's measurement and state again
// by the rules of this release.
func remeasurePolicies(app core.App, now time.Time) error {
	records, err := app.FindAllRecords(schema.TrustPolicies)
	if err != nil {
		return err
	}
	since := now.UTC().AddDate(0, 0, 1-enrichment.MeasureDays).Format(time.DateOnly)
	for _, rec := range records {
		var groups []struct {
			Counted int `db:"counted"`
			Right   int `db:"correct"`
			N       int `db:"n"`
		}
		q := `SELECT counted, correct, SUM(n) AS n FROM ` + schema.TrustCountsTable + `
			WHERE organization = {:org} AND client = {:client} AND day >= {:since} AND confidence >= {:min}`
		params := dbx.Params{"org": rec.GetString("organization"), "client": rec.GetString("apiClient"), "since": since,
			"min": rec.GetInt("minConfidence")}
		if t := rec.GetString("template"); t != "" {
			q, params["template"] = q+` AND template = {:template}`, t
		}
		if err := app.DB().NewQuery(q + ` GROUP BY 1, 2`).Bind(params).All(&groups); err != nil {
			return fmt.Errorf("measure trust policy %s: %w", rec.Id, err)
		}
		counts := make([]enrichment.TrustCount, len(groups))
		for i, g := range groups {
			counts[i] = enrichment.TrustCount{Counted: g.Counted, Right: g.Right, N: g.N}
		}
		p := enrichment.TrustPolicy{Fields: rec.GetStringSlice("fields"), MinReviewed: rec.GetInt("minReviewed"),
			TargetPrecision: rec.GetFloat("targetPrecision"), Enabled: rec.GetBool("enabled"), State: rec.GetString("state")}
		measured := enrichment.Measure(p.FieldsMask(), counts)
		state, reason := enrichment.Earned(p, measured)
		set := dbx.Params{"measuredPrecision": round4(measured.Precision()), "measuredReviewed": measured.Reviewed,
			"precisionLowerBound": round4(measured.LowerBound()), "state": state, "probation": "[]"}
		if reason != "" {
			set["stateReason"] = reason
		}
		stamp := types.NowDateTime().String()
		switch {
		case state != p.State:
			set["stateChangedAt"] = stamp
			if state == enrichment.PolicyActive {
				set["activatedAt"] = stamp
			}
		case state == enrichment.PolicyActive:
			set["activatedAt"] = rec.GetDateTime("stateChangedAt").String()
		}
		if _, err := app.DB().Update(schema.TrustPolicies, set, dbx.HashExp{"id": rec.Id}).Execute(); err != nil {
			return fmt.Errorf("update trust policy %s: %w", rec.Id, err)
		}
	}
	return nil
}

// round4 rounds a share to four places, as the policies show it.
func round4(x float64) float64 {
	return float64(int(x*10000+0.5)) / 10000
}

func dropTrustBounds(app core.App) error {
	if err := execAll(app, []string{
		`ALTER TABLE ` + schema.TrustCountsTable + ` RENAME COLUMN counted TO proposed`,
		`ALTER TABLE ` + schema.TrustCountsTable + ` RENAME COLUMN correct TO clean`,
	}); err != nil {
		return err
	}
	revisions, err := app.FindCollectionByNameOrId(schema.Revisions)
	if err != nil {
		return err
	}
	revisions.RemoveIndex(schema.IdxRevisionsPolicyDecided)
	if err := app.Save(revisions); err != nil {
		return err
	}
	policies, err := app.FindCollectionByNameOrId(schema.TrustPolicies)
	if err != nil {
		return err
	}
	for _, name := range []string{"precisionLowerBound", "activatedAt", "probation"} {
		policies.Fields.RemoveByName(name)
	}
	return app.Save(policies)
}
