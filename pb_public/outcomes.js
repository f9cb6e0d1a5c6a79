// What became of each proposed field and attribute of a revision, read from
// what the revision recorded, as GET /api/enrichment/revisions reports it
// to the vendor (the server's enrichment/outcomes.go). Pure functions, no
// DOM, no requests. Revisions decided before attributes were decided one
// by one have no attribute lists: there "attributes" in approvedFields,
// supersededFields or overwrittenFields stands for every proposed attribute.
// A rollback's revertedFields and revertedAttributes say what it restored.

const list = (v) => (Array.isArray(v) ? v : []);

/** attributeKey is the key of one attribute in approvedFields, corrections and fieldReasons. */
export function attributeKey(name) {
  return `attributes.${name}`;
}

/** proposedAttributes are the names of the attributes rev proposes, in the order proposed, each once. */
export function proposedAttributes(rev) {
  return [...new Set(list(rev.proposed?.attributes).map((a) => a?.attribute).filter((n) => typeof n === 'string'))];
}

/** pendingAttributes are the proposed attributes of a pending rev not superseded yet. */
export function pendingAttributes(rev) {
  if (list(rev.supersededFields).includes('attributes')) return [];
  const superseded = new Set(list(rev.supersededAttributes));
  return proposedAttributes(rev).filter((n) => !superseded.has(n));
}

function corrected(rev, key) {
  return Boolean(rev.corrections && typeof rev.corrections === 'object' && Object.hasOwn(rev.corrections, key));
}

// closed is the state of whatever the revision did not apply.
function closed(rev) {
  switch (rev.status) {
    case 'accepted': case 'rejected': case 'reverted': return 'not_applied';
    case 'expired': return 'expired';
    case 'superseded': return 'superseded';
    default: return 'pending';
  }
}

// applied tells whether rev's acceptance applied what it applied:
// accepted, or accepted and then reverted by a rollback.
function applied(rev) {
  return rev.status === 'accepted' || rev.status === 'reverted';
}

/** attributeOutcome is the state of proposed attribute name of rev. */
export function attributeOutcome(rev, name) {
  if (list(rev.supersededFields).includes('attributes') || list(rev.supersededAttributes).includes(name)) return 'superseded';
  if (applied(rev) && attributeApplied(rev, name)) {
    if (list(rev.revertedAttributes).includes(name)) return 'reverted';
    const over = list(rev.overwrittenAttributes);
    if ((over.length === 0 && list(rev.overwrittenFields).includes('attributes')) || over.includes(name)) return 'overwritten';
    return corrected(rev, attributeKey(name)) ? 'corrected' : 'applied';
  }
  return closed(rev);
}

function attributeApplied(rev, name) {
  const approved = list(rev.approvedAttributes);
  if (approved.length) return approved.includes(name);
  const fields = list(rev.approvedFields);
  return fields.length === 0 || fields.includes('attributes');
}

/** fieldOutcome is the state of proposed field of rev (attributes: applied, partly_applied or not_applied on an acceptance). */
export function fieldOutcome(rev, field) {
  if (list(rev.supersededFields).includes(field)) return 'superseded';
  if (field === 'attributes' && applied(rev) && proposedAttributes(rev).length) {
    const states = proposedAttributes(rev).map((n) => attributeOutcome(rev, n)).filter((s) => s !== 'superseded');
    const kept = states.filter((s) => ['applied', 'corrected', 'overwritten'].includes(s)).length;
    if (kept === 0) return states.includes('reverted') ? 'reverted' : 'not_applied';
    if (kept < states.length) return 'partly_applied';
    return states.includes('overwritten') ? 'overwritten' : 'applied';
  }
  const approved = list(rev.approvedFields);
  if (applied(rev) && (approved.length === 0 || approved.includes(field))) {
    if (list(rev.revertedFields).includes(field)) return 'reverted';
    if (list(rev.overwrittenFields).includes(field)) return 'overwritten';
    return corrected(rev, field) ? 'corrected' : 'applied';
  }
  return closed(rev);
}
