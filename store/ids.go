package store

import (
	"fmt"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
)

// NextIDs reserves n consecutive numeric ids of a collection and returns the
// first. Call it inside the transaction that inserts the records: a rollback
// then gives the numbers back, while a committed number is never handed out
// again, even after its record is deleted.
func NextIDs(db dbx.Builder, collection string, n int) (int64, error) {
	if n < 1 {
		return 0, fmt.Errorf("reserve ids of %s: count %d < 1", collection, n)
	}
	var last int64
	err := db.NewQuery(`INSERT INTO {{` + schema.SequenceTable + `}} ([[name]], [[last]])
		VALUES ({:name}, {:n})
		ON CONFLICT([[name]]) DO UPDATE SET [[last]] = [[last]] + {:n}
		RETURNING [[last]]`).
		Bind(dbx.Params{"name": collection, "n": n}).
		Row(&last)
	if err != nil {
		return 0, fmt.Errorf("reserve %d ids of %s: %w", n, collection, err)
	}
	if last > enrichment.MaxID {
		// note: the caller's transaction rolls the reservation back
		return 0, fmt.Errorf("reserve %d ids of %s: the ids are used up (the API's ids end at %d, and %d have been given; an id set by hand near the end takes the rest)",
			n, collection, int64(enrichment.MaxID), last-int64(n))
	}
	return last - int64(n) + 1, nil
}

// ClaimID records that id was given explicitly (by an operator in the
// dashboard, say), so the sequence never hands it out again.
func ClaimID(db dbx.Builder, collection string, id int64) error {
	_, err := db.NewQuery(`INSERT INTO {{` + schema.SequenceTable + `}} ([[name]], [[last]])
		VALUES ({:name}, {:id})
		ON CONFLICT([[name]]) DO UPDATE SET [[last]] = MAX([[last]], excluded.[[last]])`).
		Bind(dbx.Params{"name": collection, "id": id}).
		Execute()
	if err != nil {
		return fmt.Errorf("claim id %d of %s: %w", id, collection, err)
	}
	return nil
}
