// What a choice among one product's competing proposals sends, worked out
// before anything is sent: which proposal is picked for each field at
// first (the server's plan says: api.plan), and what the reviewer's picks
// send for each revision. Pure functions, no DOM, no requests.
import { pendingFields } from './review-state.js';

/**
 * picksOf reads the server's plan of a group accept of one product's
 * pending proposals (api.plan) as the proposal picked at first for each
 * field: field → revision id. Each field goes to the proposal that wins
 * it: an accepted one wins all its fields, a left one those it does not lose.
 */
export function picksOf(plan) {
  const picks = {};
  for (const r of plan.accept) for (const f of r.fields) picks[f] = r.id;
  for (const r of plan.left) {
    const lost = new Set(r.lost.map((l) => l.field));
    for (const f of r.fields) if (!lost.has(f)) picks[f] = r.id;
  }
  return picks;
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
