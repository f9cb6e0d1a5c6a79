package store

import (
	"fmt"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
)

// HistoryDays is how many days of completeness the overview shows.
const HistoryDays = 90

// RecordCompleteness writes each organization's completeness at now as
// its row of the day (the day's last measure stands), and returns how
// many organizations it measured.
func (s *Catalog) RecordCompleteness(now time.Time) (int, error) {
	orgs, err := s.Accounts().Organizations()
	if err != nil {
		return 0, err
	}
	for _, org := range orgs {
		mean, products, err := s.MeanCompleteness(org)
		if err != nil {
			return 0, err
		}
		_, err = s.db().NewQuery(`INSERT INTO {{` + schema.CompletenessHistoryTable + `}} ([[organization]], [[day]], [[completeness]], [[products]])
			VALUES ({:org}, {:day}, {:completeness}, {:products})
			ON CONFLICT ([[organization]], [[day]]) DO UPDATE SET [[completeness]] = excluded.[[completeness]], [[products]] = excluded.[[products]]`).
			Bind(dbx.Params{"org": string(org), "day": now.UTC().Format(time.DateOnly), "completeness": enrichment.RoundTenth(mean), "products": products}).Execute()
		if err != nil {
			return 0, fmt.Errorf("record the completeness of organization %s: %w", org, err)
		}
	}
	return len(orgs), nil
}

// CompletenessOverview is org's completeness now and its history of the
// last HistoryDays days, today's as it is now.
func (s *Catalog) CompletenessOverview(org enrichment.Org, now time.Time) (enrichment.CompletenessOverview, error) {
	mean, products, err := s.MeanCompleteness(org)
	if err != nil {
		return enrichment.CompletenessOverview{}, err
	}
	o := enrichment.CompletenessOverview{Completeness: enrichment.RoundTenth(mean), Products: products, History: []enrichment.CompletenessDay{}}
	today := now.UTC().Format(time.DateOnly)
	err = s.db().Select("day", "completeness", "products").From(schema.CompletenessHistoryTable).
		Where(dbx.HashExp{"organization": string(org)}).
		AndWhere(dbx.NewExp("[[day]] > {:from} AND [[day]] < {:today}", dbx.Params{
			"from": now.UTC().AddDate(0, 0, -HistoryDays).Format(time.DateOnly), "today": today})).
		OrderBy("day").All(&o.History)
	if err != nil {
		return enrichment.CompletenessOverview{}, fmt.Errorf("read the completeness history of organization %s: %w", org, err)
	}
	o.History = append(o.History, enrichment.CompletenessDay{Day: today, Completeness: o.Completeness, Products: products})
	return o, nil
}
