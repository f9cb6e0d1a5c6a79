// A revision's review state as the server computes it and sends it with
// the revision (its `review` member in the records API and realtime):
// per field and attribute its outcome, whether it is pending, decidable
// and whether leaving it unapplied needs a reason; of the revision whether
// it is decidable or overdue. The page reads it here and works none of it
// out. Pure functions, no DOM, no requests.

const empty = { decidable: false, overdue: false, ttlDays: 0, reasonRequired: false, fields: [], attributes: [] };

/** attributeKey is the key of one attribute in approvedFields, corrections and fieldReasons, as the API names it. */
export function attributeKey(name) {
  return `attributes.${name}`;
}

/** reviewOf is rev's review state ({decidable, overdue, ttlDays, reasonRequired, fields, attributes}); nothing decidable without one. */
export function reviewOf(rev) {
  return rev?.review && typeof rev.review === 'object' ? { ...empty, ...rev.review } : empty;
}

const names = (items) => items.map((i) => i.name);

/** pendingFields are the fields of rev that await a decision, in the API's order. */
export function pendingFields(rev) {
  return names(reviewOf(rev).fields.filter((i) => i.pending));
}

/** pendingAttributes are the attributes of rev that await a decision, in the order proposed. */
export function pendingAttributes(rev) {
  return names(reviewOf(rev).attributes.filter((i) => i.pending));
}

/** proposedAttributes are the names of the attributes rev proposes, in the order proposed. */
export function proposedAttributes(rev) {
  return names(reviewOf(rev).attributes);
}

/** fieldOutcome is what became of proposed field of rev. */
export function fieldOutcome(rev, field) {
  return reviewOf(rev).fields.find((i) => i.name === field)?.outcome;
}

/** attributeOutcome is what became of proposed attribute name of rev. */
export function attributeOutcome(rev, name) {
  return reviewOf(rev).attributes.find((i) => i.name === name)?.outcome;
}

/**
 * leftUnapplied are the pending items of rev a decision applying only
 * applied (field names and attribute keys; [] for a rejection) leaves
 * unapplied, each {key, reasonNeeded}. The attributes field counts as
 * applied when any of its attributes is.
 */
export function leftUnapplied(rev, applied) {
  const { fields, attributes } = reviewOf(rev);
  const out = [];
  for (const f of fields) {
    const kept = applied.includes(f.name) || (f.name === 'attributes' && applied.some((k) => k.startsWith('attributes.')));
    if (f.pending && !kept) out.push({ key: f.name, reasonNeeded: f.reasonNeeded });
  }
  for (const a of attributes) {
    const key = attributeKey(a.name);
    if (a.pending && !applied.includes(key) && !applied.includes('attributes')) out.push({ key, reasonNeeded: a.reasonNeeded });
  }
  return out;
}

/** reasonNeeded tells whether a decision on rev applying only applied needs a reason, as the server says of what it leaves. */
export function reasonNeeded(rev, applied) {
  return leftUnapplied(rev, applied).some((i) => i.reasonNeeded);
}
