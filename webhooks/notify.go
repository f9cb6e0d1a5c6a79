package webhooks

import "github.com/pocketbase/pocketbase/core"

// Notify wakes app's dispatcher, if it runs: something that may have queued
// deliveries has just committed (the step after each commit calls it,
// service/wiring). Without it the dispatcher still finds them
// within its polling interval; with it, a decision's event leaves at once.
func Notify(app core.App) {
	if d, ok := app.Store().Get(dispatcherKey).(*Dispatcher); ok {
		d.wake()
	}
}
