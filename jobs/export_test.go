package jobs

// Remembered counts the policies the worker keeps measurement times and
// cursors of, for the tests of what it forgets.
func (t *Trust) Remembered() (measured, cursors int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.measured), len(t.cursors)
}
