package gen

import (
	"github.com/catalog-enrichment/enrichment/catalog"

	"math/rand/v2"
	"strings"
	"unicode/utf8"
)

// Description lengths, in characters (runes).
const (
	minDescription = 200
	maxDescription = 1500
)

// describe assembles a readable English description of p from sentence
// templates: an introduction, sentences about its attribute values, a word
// about the brand, a feature summary and general remarks, until a random
// target length between minDescription and maxDescription is reached.
func (g *generator) describe(u *unit, p *catalog.Product) string {
	rng, t := g.rng, u.tmpl
	uses := t.kind.uses
	ui := rng.IntN(len(uses))
	other := (ui + 1 + rng.IntN(len(uses)-1)) % len(uses)
	args := []string{u.base, p.Brand.Name, t.noun, uses[ui], t.rangeName, uses[other]}

	d := &g.desc
	d.reset(minDescription + rng.IntN(maxDescription-minDescription+1))
	d.add(pick(rng, introSentences), args...)
	if p.Name != u.base {
		d.add("This version comes in %[1]s.", strings.TrimPrefix(p.Name, u.base+" – "))
	}

	// Rotate through sentence forms and closing clauses so that one
	// description does not repeat itself.
	text, number := newRotor(rng, textSentences), newRotor(rng, numberSentences)
	textEnd, numberEnd := newRotor(rng, textClauses), newRotor(rng, numberClauses)

	summary := d.summary[:0]
	for _, i := range rng.Perm(len(u.chosen)) {
		if d.done() {
			break
		}
		o := u.chosen[i]
		spec, v, name := t.specs[o], p.Attributes[i].Detail, t.lower[o]
		switch {
		case v == "":
		case spec.typ == typeBoolean && v == "true":
			summary = append(summary, name+" yes")
		case spec.typ == typeBoolean:
			summary = append(summary, name+" no")
		case spec.typ == typeNumber && spec.unit == "", v == "None":
			summary = append(summary, name+" "+strings.ToLower(v))
		case spec.typ == typeNumber:
			d.add(number.next(), name, spec.withUnit(v), numberEnd.next(), t.articled[o])
		default:
			d.add(text.next(), name, v, textEnd.next())
		}
	}
	d.summary = summary
	d.add(pick(rng, brandSentences), args...)
	if len(summary) > 0 {
		d.add("At a glance: %[1]s.", strings.Join(summary, ", "))
	}
	for _, i := range rng.Perm(len(fillerSentences)) {
		if d.done() {
			break
		}
		d.add(fillerSentences[i], args...)
	}
	return string(d.buf)
}

func pick(rng *rand.Rand, list []string) string {
	return list[rng.IntN(len(list))]
}

// rotor hands out the entries of a list in turn, from a random start.
type rotor struct {
	list []string
	i    int
}

func newRotor(rng *rand.Rand, list []string) rotor {
	return rotor{list: list, i: rng.IntN(len(list))}
}

func (r *rotor) next() string {
	r.i++
	return r.list[r.i%len(r.list)]
}

// descBuilder joins sentences with spaces until target runes are reached,
// never exceeding maxDescription. Its buffers are reused between products.
type descBuilder struct {
	buf     []byte
	n       int // runes written
	target  int
	summary []string
}

func (d *descBuilder) reset(target int) {
	d.buf, d.n, d.target = d.buf[:0], 0, target
}

// done reports whether the target length has been reached.
func (d *descBuilder) done() bool { return d.n >= d.target }

// add appends a sentence template with its indexed verbs (%[1]s .. %[9]s)
// replaced by args, unless the target is reached or the sentence would not fit.
func (d *descBuilder) add(sentence string, args ...string) {
	if d.done() {
		return
	}
	mark := len(d.buf)
	if mark > 0 {
		d.buf = append(d.buf, ' ')
	}
	for i := 0; i < len(sentence); i++ {
		if c := sentence[i]; c != '%' || i+4 >= len(sentence) || sentence[i+1] != '[' {
			d.buf = append(d.buf, c)
			continue
		}
		d.buf = append(d.buf, args[sentence[i+2]-'1']...)
		i += 4 // skip "%[N]s"
	}
	n := utf8.RuneCount(d.buf[mark:])
	if d.n+n > maxDescription {
		d.buf = d.buf[:mark]
		return
	}
	d.n += n
}
