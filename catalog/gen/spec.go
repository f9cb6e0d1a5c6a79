package gen

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Data types of template options, as the import format spells them.
const (
	typeString  = "STRING"
	typeNumber  = "NUMBER"
	typeBoolean = "BOOLEAN"
)

// attrSpec describes one attribute a product type can carry: its name, unit,
// data type and how plausible values for it are drawn.
//
// A spec with values picks one of them; a NUMBER spec without values draws
// lo + k*step (all scaled by 10^dec to stay in integers, so output never
// depends on floating-point rounding); a BOOLEAN spec gives "true" or "false".
type attrSpec struct {
	name    string
	unit    string // "" means no unit (null in JSON)
	typ     string
	values  []string
	lo, hi  int64
	step    int64
	dec     int
	variant bool // may distinguish the variants of a family
	ordered bool // values have a natural order (sizes): variants take a run of them
}

// str is a STRING attribute with a fixed list of values.
func str(name string, values ...string) attrSpec {
	return attrSpec{name: name, typ: typeString, values: values}
}

// nums is a NUMBER attribute with a fixed list of values (in ascending order).
func nums(name, unit string, values ...string) attrSpec {
	return attrSpec{name: name, unit: unit, typ: typeNumber, values: values, ordered: true}
}

// num is a NUMBER attribute drawn from lo..hi in multiples of step.
func num(name, unit string, lo, hi, step float64) attrSpec {
	dec := 0
	for dec < 3 {
		x := step * math.Pow10(dec)
		if math.Abs(x-math.Round(x)) < 1e-9 {
			break
		}
		dec++
	}
	scale := math.Pow10(dec)
	return attrSpec{
		name: name, unit: unit, typ: typeNumber, dec: dec,
		lo: int64(math.Round(lo * scale)), hi: int64(math.Round(hi * scale)),
		step: int64(math.Round(step * scale)),
	}
}

// flag is a BOOLEAN attribute.
func flag(name string) attrSpec {
	return attrSpec{name: name, typ: typeBoolean}
}

// variant marks a spec with listed values as able to tell variants apart;
// specs of ordered sizes keep their order when variants pick values.
func variant(a attrSpec) attrSpec {
	a.variant = true
	return a
}

// sized marks a STRING spec whose values are sizes in ascending order.
func sized(a attrSpec) attrSpec {
	a.ordered = true
	return a
}

// value draws one plausible value for the attribute.
func (a *attrSpec) value(rng *rand.Rand) string {
	switch {
	case len(a.values) > 0:
		return a.values[rng.IntN(len(a.values))]
	case a.typ == typeBoolean:
		if rng.IntN(10) < 6 {
			return "true"
		}
		return "false"
	default:
		steps := (a.hi - a.lo) / a.step
		return formatScaled(a.lo+a.step*rng.Int64N(steps+1), a.dec)
	}
}

// withUnit renders a value the way it reads in a product name: "512 GB".
func (a *attrSpec) withUnit(v string) string {
	if a.unit == "" || v == "" {
		return v
	}
	return v + " " + a.unit
}

// formatScaled prints v/10^dec with exactly dec decimals.
func formatScaled(v int64, dec int) string {
	if dec == 0 {
		return strconv.FormatInt(v, 10)
	}
	neg := v < 0
	if neg {
		v = -v
	}
	s := strconv.FormatInt(v, 10)
	if len(s) <= dec {
		s = strings.Repeat("0", dec-len(s)+1) + s
	}
	s = s[:len(s)-dec] + "." + s[len(s)-dec:]
	if neg {
		s = "-" + s
	}
	return s
}
