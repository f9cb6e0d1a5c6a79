// Bulk decisions of everything the queue's filters match: every pending
// revision of every page, accepted or rejected after a dialog that lists
// their SKUs, sent as one group decision (POST /api/enrichment/review/decisions,
// through the page's outbox with its undo). An accept is planned by the
// server first: where proposals compete for a field, only the most
// confident one is accepted and the others are left, as in every group
// accept.
import * as api from '../lib/api.js';
import { $, message } from '../lib/dom.js';
import * as outbox from '../lib/outbox.js';
import { filters, sort } from './queue.js';
import { confirmDialog } from './group.js';

let hold = () => {};

// pageSize is how many revisions each read of the matching ones takes (the
// queue route's largest page).
const pageSize = 500;

/** initBulk wires the buttons; onDecide is the page's (see app.js). */
export function initBulk({ onDecide }) {
  hold = onDecide;
  $('#match-accept').addEventListener('click', () => decideMatching('accepted'));
  $('#match-reject').addEventListener('click', () => decideMatching('rejected'));
}

function plural(n, noun) {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/**
 * matching reads every pending revision the filters match, in the queue's
 * order, up to the group limit (+1, to tell more): {items, reasonRequired},
 * reasonRequired as the server says of rejecting them.
 */
export async function matching() {
  const most = api.limits.planRevisions || 5000;
  const out = [];
  let reasonRequired = false;
  for (let page = 1; out.length <= most; page++) {
    const list = await api.listQueue(filters(), sort(), page, outbox.excluded(), undefined, pageSize);
    out.push(...list.items);
    reasonRequired ||= list.reasonRequired;
    if (page >= list.totalPages || list.items.length === 0) break;
  }
  return { items: out, reasonRequired };
}

// skuList lists the SKUs of items for the dialog, each with its revision.
function skuList(items) {
  return items.map((r) => `${r.sku} · #${r.id}`);
}

/** decideMatching accepts or rejects, after the dialog, every pending revision the filters match. */
export async function decideMatching(status) {
  let items;
  let reasonRequired;
  try {
    ({ items, reasonRequired } = await matching());
  } catch (err) {
    outbox.say(`Could not list the matching revisions: ${message(err)}`, { error: true });
    return;
  }
  const most = api.limits.planRevisions || 5000;
  if (items.length === 0) {
    outbox.say('No pending revision matches the filters.', { error: true });
    return;
  }
  if (items.length > most) {
    outbox.say(`More than ${most} pending revisions match the filters: narrow them to decide at most ${most} at once.`, { error: true });
    return;
  }
  if (status === 'rejected') {
    const answer = await confirmDialog({
      text: `Reject ${plural(items.length, 'pending revision')} matching the filters? Nothing of them is applied.`,
      details: skuList(items), okLabel: `Reject ${items.length}`, danger: true, why: true,
      requireReason: reasonRequired,
    });
    if (!answer) return;
    const body = { status: 'rejected' };
    if (answer.reason) body.reason = answer.reason;
    if (answer.comment) body.comment = answer.comment;
    hold({
      text: `Reject ${plural(items.length, 'matching revision')}${answer.reason ? ` (${api.reasonLabel(answer.reason)})` : ''}`,
      decisions: items.map((r) => ({ id: r.id, body })),
    });
    return;
  }
  let plan;
  try {
    await outbox.flush();
    plan = await api.plan({ revisions: items.map((r) => r.id) });
  } catch (err) {
    outbox.say(`Could not read the competing proposals: ${message(err)}`, { error: true });
    return;
  }
  const n = plan.accept.length;
  const left = plan.left.length
    ? ` ${plural(plan.left.length, 'revision')} compete with a proposal of higher confidence and stay pending.` : '';
  if (n === 0) {
    outbox.say(`None of the matching revisions can be accepted.${left}`, { error: true });
    return;
  }
  const answer = await confirmDialog({
    text: `Accept ${plural(n, 'pending revision')} matching the filters? Every proposed field of each is applied to its product.${left}`,
    details: skuList(plan.accept), okLabel: `Accept ${n}`,
  });
  if (!answer) return;
  hold({
    text: `Accept ${plural(n, 'matching revision')}`,
    decisions: plan.accept.map((r) => ({ id: r.id, body: { status: 'accepted' } })),
  });
}
