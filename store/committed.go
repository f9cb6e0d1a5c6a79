package store

import "github.com/pocketbase/pocketbase/core"

// What the world outside the database hears of a write happens once the
// write commits, in one step that the app's wiring sets (service/wiring):
// realtime subscribers are told of the revisions written with SQL, and the
// webhook dispatcher is woken for the deliveries queued. The store reports
// what it wrote; it neither knows nor calls who listens.

// afterCommitKey holds, in app.Store(), the step run after each commit.
const afterCommitKey = "enrichmentAfterCommit"

// Committed is what one committed write tells the world outside the
// database.
type Committed struct {
	// Created and Updated are revisions written with SQL, which fires no
	// model event of PocketBase's: realtime subscribers are told of them.
	Created, Updated []int64
	// Outbox tells that webhook deliveries were queued.
	Outbox bool
	// Counted are the API clients whose trust counters moved (a person
	// decided, an audit closed): the trust worker measures their policies
	// again at once, and may accept what a version's probation held back.
	Counted []string
}

func (c Committed) empty() bool {
	return len(c.Created)+len(c.Updated) == 0 && !c.Outbox && len(c.Counted) == 0
}

// OnCommitted makes step what follows every write of the store on app once
// it commits; the wiring sets it once. Without it, writes tell nobody.
func OnCommitted(app core.App, step func(Committed)) {
	app.Store().Set(afterCommitKey, step)
}

// committed hands c to the app's step: once the transaction the store
// writes in commits (not at all when it rolls back), or at once outside
// one.
func (s *base) committed(c Committed) {
	step, ok := s.app.Store().Get(afterCommitKey).(func(Committed))
	if !ok || c.empty() {
		return
	}
	tx := s.app.TxInfo()
	if tx == nil {
		step(c)
		return
	}
	tx.OnComplete(func(txErr error) error {
		if txErr == nil {
			step(c)
		}
		return nil
	})
}
