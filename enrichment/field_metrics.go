package enrichment

import "slices"

// Metrics per field: what reviewers did with each enrichable field of the
// revisions they decided. A decision is kept as a FieldMask, so the
// metrics count it without reading the revision again.

// FieldMetrics counts, over reviewed revisions, those that proposed a
// field, those that had it applied (corrected ones included; for
// attributes, any attribute applied) and those where the reviewer
// corrected it.
type FieldMetrics struct {
	Field     string `json:"field"`
	Proposed  int    `json:"proposed"`
	Applied   int    `json:"applied"`
	Corrected int    `json:"corrected"`
}

// FieldMask packs what a decision did with each field: bit i (i the
// field's place in EnrichableFields) when proposed, bit 5+i when applied,
// bit 10+i when corrected.
type FieldMask int

// NewFieldMask is the mask of a decision on a revision that proposed
// fields, applied applied and corrected the keys corrected (fields or
// "attributes.NAME").
func NewFieldMask(proposed, applied, corrected []string) FieldMask {
	var m FieldMask
	for i, name := range EnrichableFields {
		if slices.Contains(proposed, name) {
			m |= 1 << i
		}
		if slices.Contains(applied, name) {
			m |= 1 << (5 + i)
		}
		for _, key := range corrected {
			if field, _, _ := SplitKey(key); field == name {
				m |= 1 << (10 + i)
			}
		}
	}
	return m
}

// Proposed reports whether the field at place i was proposed.
func (m FieldMask) Proposed(i int) bool { return m&(1<<i) != 0 }

// Applied reports whether the field at place i was applied.
func (m FieldMask) Applied(i int) bool { return m&(1<<(5+i)) != 0 }

// Corrected reports whether the field at place i was corrected.
func (m FieldMask) Corrected(i int) bool { return m&(1<<(10+i)) != 0 }

// AnyCorrected reports whether the decision corrected anything.
func (m FieldMask) AnyCorrected() bool { return m&(0x1f<<10) != 0 }

// ByPolicy is the mask's bit of a decision a trust policy made, so the
// metrics' edges count autoAccepted from the same index as the fields.
const ByPolicy FieldMask = 1 << 15

// slotsShift places in a mask, in 8 bits, how many of its product's gaps
// an accepted decision filled, so the metrics' edges count slotsFilled
// from the same index as the fields.
const slotsShift = 16

// WithSlotsFilled is m counting n gaps filled (at most 255).
func (m FieldMask) WithSlotsFilled(n int) FieldMask {
	return m&^(0xff<<slotsShift) | FieldMask(min(max(n, 0), 0xff))<<slotsShift
}

// SlotsFilled is how many gaps the decision filled.
func (m FieldMask) SlotsFilled() int { return int(m>>slotsShift) & 0xff }

// Clean is the mask of places in EnrichableFields applied without
// correction.
func (m FieldMask) Clean() int { return int(m>>5) & 0x1f &^ (int(m>>10) & 0x1f) }

// ProposedFields is the mask of places in EnrichableFields proposed.
func (m FieldMask) ProposedFields() int { return int(m) & 0x1f }

// Undecided is the mask with only what was proposed: what a reverted
// revision counts, as a rejected one does.
func (m FieldMask) Undecided() FieldMask { return m & (1<<len(EnrichableFields) - 1) }
