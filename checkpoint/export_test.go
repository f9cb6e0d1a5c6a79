package checkpoint

import "context"

// CaughtUp tells a test whether c has copied everything committed so far.
func (c *Checkpointer) CaughtUp() bool {
	version, err := c.versions.Version(context.Background())
	return err == nil && c.caughtUp(version)
}
