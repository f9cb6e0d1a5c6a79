// What a choice among one product's competing proposals sends, worked out
// before anything is sent: which proposal is picked for each field at
// first, and what the reviewer's picks send for each revision. (What the
// bulk and selection accepts apply, the server plans: api.plan.) Pure
// functions, no DOM, no requests.
import { fieldNames } from './api.js';

/** pendingFields are the fields of rev still waiting for a decision (proposed, not superseded). */
export function pendingFields(rev) {
  const superseded = new Set(rev.supersededFields || []);
  return fieldNames.filter((f) => rev.proposed && Object.hasOwn(rev.proposed, f) && !superseded.has(f));
}

// ahead orders proposals for one field: the highest confidence first, then
// the older, then the lower id.
function ahead(a, b) {
  return (b.confidence || 0) - (a.confidence || 0) ||
    String(a.created).localeCompare(String(b.created)) ||
    Number(a.id) - Number(b.id);
}

/**
 * bestPerField picks, among pending revisions, the one that wins each
 * field of each product: a Map from "product/field" to the revision.
 */
export function bestPerField(revisions) {
  const best = new Map();
  for (const r of revisions) {
    if (!r.product) continue; // note: a deleted product's proposals compete with nothing
    for (const f of pendingFields(r)) {
      const key = `${r.product}/${f}`;
      const held = best.get(key);
      if (!held || ahead(r, held) < 0) best.set(key, r);
    }
  }
  return best;
}

/**
 * planChoices turns a reviewer's pick per field among one product's
 * competing proposals (picks: field → revision id, or '' to keep the
 * product's value) into one decision per revision: accepted with the
 * fields picked from it (all of them, or some: a partial approval),
 * rejected when none was. Accepts come first, so that a refused accept
 * stops the group before any proposal is rejected for it. Each decision:
 * {rev, fields (applied), partial, body}.
 */
export function planChoices(revisions, picks, { reason = '', comment = '' } = {}) {
  const out = revisions.map((rev) => {
    const pending = pendingFields(rev);
    const fields = pending.filter((f) => picks[f] === rev.id);
    const body = { status: fields.length ? 'accepted' : 'rejected' };
    const partial = fields.length > 0 && fields.length < pending.length;
    if (partial) body.approvedFields = fields;
    // note: the server takes a reason only where something is not applied
    if (reason && (partial || !fields.length)) body.reason = reason;
    if (comment) body.comment = comment; // note: a comment goes with any decision, an accept too
    return { rev, fields, partial, body };
  });
  return [...out.filter((d) => d.fields.length), ...out.filter((d) => !d.fields.length)];
}

/** needsReason tells whether a decision leaves something of a revision unapplied. */
export function needsReason(decision) {
  return decision.body.status === 'rejected' || Boolean(decision.partial);
}

/**
 * defaultPicks chooses, for each field any of revisions proposes, the
 * proposal with the highest confidence (as the bulk accept would).
 */
export function defaultPicks(revisions) {
  const picks = {};
  for (const [key, r] of bestPerField(revisions)) picks[key.slice(key.indexOf('/') + 1)] = r.id;
  return picks;
}
